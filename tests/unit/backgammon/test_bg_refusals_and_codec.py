"""Backgammon through the gRPC TableEngine service (in-memory log and bus).

- Bad input (rules 14, 15, 18, 19; OQ 12): an illegal play, a malformed play, doubling
  out of turn / after rolling / without owning the cube / above 64, a beaver that would
  pass 64, a beaver in a series, acting in the opponent's turn, chosen dice, malformed
  protobuf actions: each answered with INVALID_ARGUMENT, FAILED_PRECONDITION or
  PERMISSION_DENIED and a clear message, the table unchanged (same version and views).
- The protobuf codec: a whole money game played from `View.backgammon` alone with
  `GameAction.backgammon`, a double taken on the way; its settlement request carries
  stake x cube x multiplier and the commission of rules 39-42.
"""

from __future__ import annotations

import json
import random

import grpc
import pytest

from croupier.backgammon.v1 import backgammon_pb2
from croupier.table.v1 import table_pb2
from tests.support.backgammon import (
    KIND,
    PLAYERS,
    act,
    first_play,
    open_table,
    public,
    refused,
    roll_and_play,
    running_service,
    table_view,
)
from tests.support.table import settlements

pytestmark = pytest.mark.timeout(60)

FAILED, INVALID = grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INVALID_ARGUMENT


async def test_rules_14_15_bad_moves_and_doubles_are_refused_with_the_table_unchanged() -> None:
    async with running_service("bad") as service:
        stub = service.stub
        options = backgammon_pb2.Options(
            mode=backgammon_pb2.MODE_SINGLE, stake=100, beaver=True, currency="USD"
        )
        table_id = await open_table(stub, options)
        view = await public(stub, table_id)
        mover = view["to_act"]
        other = next(p for p in PLAYERS if p != mover)

        code, message = await refused(stub, table_id, other, {"action": "roll"})
        assert (code, message) == (FAILED, f"it is not {other}'s turn to act")
        code, message = await refused(stub, table_id, mover, {"action": "double"})
        assert code == FAILED and "before rolling" in message  # rule 14
        code, message = await refused(stub, table_id, mover, {"action": "move", "play": "24/1"})
        assert (code, message) == (FAILED, "point 1 is held by the opponent")
        four = {"action": "move", "play": "6/5(4)"}  # an opening roll is never a double
        code, message = await refused(stub, table_id, mover, four)
        assert code == FAILED and "is not a legal play for" in message
        code, message = await refused(stub, table_id, mover, {"action": "move", "play": "xyz"})
        assert code == INVALID and "cannot read the play" in message
        code, message = await refused(stub, table_id, mover, {"action": "fly"})
        assert code == INVALID and "unknown action 'fly'" in message
        code, message = await refused(
            stub, table_id, mover, backgammon_pb2.Action(kind=KIND["ACTION_KIND_ROLL"], play="8/5")
        )
        assert code == INVALID and "carries no play" in message
        code, message = await refused(stub, table_id, mover, backgammon_pb2.Action())
        assert code == INVALID and "kind" in message

        await first_play(stub, table_id)
        # Now `other` is at the start of his turn.
        code, message = await refused(stub, table_id, mover, {"action": "double"})
        assert (code, message) == (FAILED, f"it is not {mover}'s turn to act")
        code, message = await refused(stub, table_id, other, {"action": "roll", "dice": [6, 6]})
        assert code == grpc.StatusCode.PERMISSION_DENIED and "seed" in message
        code, message = await refused(stub, table_id, mover, {"action": "take"})
        assert code == FAILED  # nothing to take, and not his turn

        await act(stub, table_id, other, backgammon_pb2.Action(kind=KIND["ACTION_KIND_DOUBLE"]))
        await act(stub, table_id, mover, {"action": "take"})
        # rule 15: the doubler (still on turn) no longer owns the cube.
        code, message = await refused(stub, table_id, other, {"action": "double"})
        assert (code, message) == (FAILED, "only the cube owner may redouble")


async def test_rule_18_vector_12_no_double_or_beaver_above_64() -> None:
    async with running_service("cube") as service:
        stub = service.stub
        options = backgammon_pb2.Options(mode=backgammon_pb2.MODE_SINGLE, stake=1, beaver=True)
        table_id = await open_table(stub, options)
        rng = random.Random(3)
        await first_play(stub, table_id)
        cube = 1
        while cube < 64:
            view = await public(stub, table_id)
            doubler = view["to_act"]
            taker = next(p for p in PLAYERS if p != doubler)
            await act(stub, table_id, doubler, {"action": "double"})
            if cube == 32:  # 32 doubled to 64: a beaver would make it 128 (vector 12)
                code, message = await refused(stub, table_id, taker, {"action": "beaver"})
                assert (code, message) == (FAILED, "a beaver cannot take the cube above 64")
            await act(stub, table_id, taker, {"action": "take"})
            cube *= 2
            assert (await public(stub, table_id))["cube"] == cube
            await roll_and_play(stub, table_id, rng)
        view = await public(stub, table_id)
        assert view["phase"] == "turn" and view["cube_owner"] == view["to_act"]
        mine = json.loads((await table_view(stub, table_id, view["to_act"])).view_json)
        assert "double" not in mine["legal"]["actions"]
        code, message = await refused(stub, table_id, view["to_act"], {"action": "double"})
        assert (code, message) == (FAILED, "the cube cannot go above 64")


async def test_rule_19_no_beaver_in_a_series() -> None:
    async with running_service("series") as service:
        stub = service.stub
        options = backgammon_pb2.Options(mode=backgammon_pb2.MODE_SERIES, stake=500, points=5)
        table_id = await open_table(stub, options)
        await first_play(stub, table_id)
        doubler = (await public(stub, table_id))["to_act"]
        taker = next(p for p in PLAYERS if p != doubler)
        await act(stub, table_id, doubler, {"action": "double"})
        code, message = await refused(stub, table_id, taker, {"action": "beaver"})
        assert (code, message) == (FAILED, "beavers are not allowed at this table")
        # A series table cannot even be opened with beavers.
        bad = backgammon_pb2.Options(
            mode=backgammon_pb2.MODE_SERIES, stake=500, points=5, beaver=True
        )
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.OpenTable(
                table_pb2.OpenTableRequest(options=table_pb2.GameOptions(backgammon=bad))
            )
        assert caught.value.code() == INVALID and "rule 19" in (caught.value.details() or "")


def commission_rule(amount: int) -> int:
    """Rules 40-42 in cents: 3 cents per player below $0.50, else 6.5 % rounded up; x 2."""
    per_player = 3 if amount < 50 else -(-amount * 65 // 1000)
    return min(2 * per_player, amount)


async def test_a_money_game_played_from_the_protobuf_view_alone_settles() -> None:
    async with running_service("proto") as service:
        stub = service.stub
        options = backgammon_pb2.Options(
            mode=backgammon_pb2.MODE_SINGLE, stake=150, max_win=10_000, currency="USD"
        )
        table_id = await open_table(stub, options)
        rng = random.Random(8)
        doubled = False
        for _ in range(2000):
            table = await table_view(stub, table_id)
            if table.last_finished_hand:
                break
            game = table.game.backgammon
            player = game.to_act
            mine = (await table_view(stub, table_id, player)).game.backgammon
            assert mine.position_id == game.position_id and mine.actions
            if "double" in mine.actions and not doubled:
                kind = "double"
                doubled = True
            elif "take" in mine.actions:
                kind = "take"
            elif "move" in mine.actions:
                kind = "move"
            else:
                kind = "roll"
            action = backgammon_pb2.Action(kind=KIND[f"ACTION_KIND_{kind.upper()}"])
            if kind == "move":
                action.play = rng.choice(list(mine.legal_plays))
            await act(stub, table_id, player, action)
        else:
            raise AssertionError("the game did not end")
        final = (await table_view(stub, table_id)).game.backgammon
        assert final.currency == "USD" and final.game_number == 1 and final.phase == "game_over"
        (settlement,) = settlements(service.bus, table_id)
        result = json.loads(settlement.details_json)
        assert doubled and result["cube"] == 2 and result["how"] == "bear_off"
        multiplier = {"single": 1, "gammon": 2, "backgammon": 3}[result["result"]]
        assert result["points"] == 2 * multiplier
        amount = 150 * 2 * multiplier
        loser = next(p for p in PLAYERS if p != result["winner"])
        fee = commission_rule(amount)
        assert dict(settlement.deltas) == {result["winner"]: amount - fee, loser: -amount}
        assert dict(settlement.commission) == {result["winner"]: fee}
        assert settlement.currency == "USD" and settlement.hand_number == 1


async def test_out_of_bound_stakes_series_and_clocks_are_refused_before_logging() -> None:
    """A stake of 2^70 (its settlement fits no int64), a series to 10^9 points, a clock of
    uint32-max seconds: INVALID_ARGUMENT naming the field and its bound, nothing logged."""
    huge_clock = 2**32 - 1
    series = backgammon_pb2.MODE_SERIES
    requests = [
        table_pb2.OpenTableRequest(
            game="backgammon", options_json=json.dumps({"mode": "single", "stake": 2**70})
        ),
        table_pb2.OpenTableRequest(
            options=table_pb2.GameOptions(
                backgammon=backgammon_pb2.Options(mode=series, stake=100, points=10**9)
            )
        ),
        table_pb2.OpenTableRequest(
            options=table_pb2.GameOptions(
                backgammon=backgammon_pb2.Options(stake=100, turn_seconds=huge_clock)
            )
        ),
        table_pb2.OpenTableRequest(
            options=table_pb2.GameOptions(backgammon=backgammon_pb2.Options(stake=100)),
            clock=table_pb2.TableClock(turn_seconds=60, reserve_seconds=huge_clock),
        ),
    ]
    async with running_service("bounds") as service:
        for request, named in zip(
            requests, ("stake", "points", "turn_seconds", "reserve_seconds"), strict=True
        ):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await service.stub.OpenTable(request)
            assert caught.value.code() == INVALID, named
            message = caught.value.details() or ""
            assert named in message and "between" in message, message
        assert [t async for t in service.log.replay()] == []


async def test_p5_the_next_money_game_is_dealt_once_both_players_send_ready() -> None:
    """¶2, ¶5: a single game over, the table deals no other game (no clock runs) until
    both players sent ACTION_KIND_READY; the view lists who is ready."""
    async with running_service("ready") as service:
        stub = service.stub
        table_id = await open_table(
            stub, backgammon_pb2.Options(mode=backgammon_pb2.MODE_SINGLE, stake=100)
        )
        await first_play(stub, table_id)
        doubler = (await public(stub, table_id))["to_act"]
        other = next(p for p in PLAYERS if p != doubler)
        await act(stub, table_id, doubler, {"action": "double"})
        await act(stub, table_id, other, {"action": "drop"})
        ready = backgammon_pb2.Action(kind=backgammon_pb2.ACTION_KIND_READY)

        over = await table_view(stub, table_id, doubler)
        assert over.last_finished_hand == 1 and over.game.backgammon.phase == "game_over"
        assert list(over.game.backgammon.actions) == ["ready"]
        await act(stub, table_id, doubler, ready)
        waiting = await table_view(stub, table_id, other)
        assert waiting.game.backgammon.phase == "game_over" and waiting.turn_seconds_left == 0
        assert list(waiting.game.backgammon.ready) == [doubler]
        assert list(waiting.game.backgammon.actions) == ["ready"]
        code, message = await refused(stub, table_id, doubler, ready)
        assert (code, message) == (FAILED, "you are already ready for the next game")
        starts = [e.kind async for t in service.log.replay() for e in t.entries]
        assert starts.count("start_hand") == 1

        await act(stub, table_id, other, ready)
        second = (await table_view(stub, table_id)).game.backgammon
        assert second.game_number == 2 and second.phase == "moving" and not second.ready


async def test_refusals_cut_the_values_they_echo() -> None:
    """A 5,000-character currency, mode, action name or play is refused with a short
    message: kit.limits.echo cuts the value (the whole of it was echoed back)."""
    long = "Y" * 5_000
    async with running_service("echo") as service:
        stub = service.stub
        for options in ({"currency": long}, {"mode": long}):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.OpenTable(
                    table_pb2.OpenTableRequest(game="backgammon", options_json=json.dumps(options))
                )
            assert caught.value.code() == INVALID
            assert 0 < len(caught.value.details() or "") < 300
        table_id = await open_table(stub, backgammon_pb2.Options(stake=1))
        mover = (await public(stub, table_id))["to_act"]
        for action in ({"action": long}, {"action": "move", "play": long + "/1"}):
            code, message = await refused(stub, table_id, mover, action)
            assert code == INVALID and 0 < len(message) < 300, (code, len(message))
