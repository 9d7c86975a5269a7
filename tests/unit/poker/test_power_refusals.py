"""Bad poker input through the gRPC TableEngine service (in-memory log and bus).

Powers on a Hold'em table (rule 4), a power out of turn (rule 32), an unknown Anchor
target, a Seal without an Anchor (rule 49), a raise above the Anchor's cap (rule 42), an
unknown power, a Sleeve Swap of a card that is not one's own, a player who is not seated,
bots on a table that has none, and malformed protobuf actions: each answered with
INVALID_ARGUMENT, FAILED_PRECONDITION, NOT_FOUND or PERMISSION_DENIED and a clear
message; the table's version and the refused player's view are unchanged.
"""

from __future__ import annotations

import json
from contextlib import AbstractAsyncContextManager
from typing import Any

import grpc
import pytest

from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import table_pb2
from tests.support.table import served_table_host

pytestmark = pytest.mark.timeout(60)

Stub = Any
PLAYERS = ("ann", "bob", "cat")
INVALID = grpc.StatusCode.INVALID_ARGUMENT
FAILED = grpc.StatusCode.FAILED_PRECONDITION
NOT_FOUND = grpc.StatusCode.NOT_FOUND


def running_service(seeds: str) -> AbstractAsyncContextManager[Stub]:
    return served_table_host(seeds)


async def open_table(stub: Stub, options: dict[str, Any]) -> str:
    request = table_pb2.OpenTableRequest(game="poker", options_json=json.dumps(options))
    request.clock.turn_seconds = 3600
    table_id: str = (await stub.OpenTable(request)).table_id
    for seat, player in enumerate(PLAYERS):
        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(table_id=table_id, player_id=player, seat=seat, stack=500)
        )
    return table_id


async def view(stub: Stub, table_id: str, player: str = "") -> table_pb2.TableView:
    request = table_pb2.GetViewRequest(table_id=table_id, player_id=player)
    result: table_pb2.TableView = (await stub.GetView(request)).view
    return result


async def hand(stub: Stub, table_id: str, player: str = "") -> dict[str, Any]:
    result: dict[str, Any] = json.loads((await view(stub, table_id, player)).view_json)["hand"]
    return result


_ids = iter(range(10**9))


async def act(stub: Stub, table_id: str, player: str, action: Any) -> table_pb2.TableView:
    request = table_pb2.ActRequest(table_id=table_id, player_id=player, command_id=f"c{next(_ids)}")
    if isinstance(action, poker_pb2.Action):
        request.action.poker.CopyFrom(action)
    else:
        request.action_json = json.dumps(action)
    result: table_pb2.TableView = (await stub.Act(request)).view
    return result


async def refused(
    stub: Stub, table_id: str, player: str, action: Any, code: grpc.StatusCode, words: str
) -> None:
    """The action is refused with `code` and a message containing `words`; nothing changed."""
    before = await view(stub, table_id, player)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await act(stub, table_id, player, action)
    assert caught.value.code() == code, (action, caught.value.details())
    assert words in (caught.value.details() or ""), caught.value.details()
    after = await view(stub, table_id, player)
    assert after.version == before.version
    assert after.view_json == before.view_json


async def test_rule_4_powers_on_a_holdem_table_are_refused() -> None:
    async with running_service("grpc-holdem") as stub:
        table_id = await open_table(stub, {"variant": "nlhe", "blinds": [1, 2]})
        actor = (await hand(stub, table_id))["to_act"]
        assert "carousel" not in await hand(stub, table_id, actor)
        for power in ({"action": "power", "power": "peek"}, {"action": "seal"}):
            await refused(stub, table_id, actor, power, FAILED, "only in Naiko mode")
        message = poker_pb2.Action(kind=poker_pb2.ACTION_KIND_POWER, power=poker_pb2.POWER_PEEK)
        await refused(stub, table_id, actor, message, FAILED, "only in Naiko mode")


async def naiko_hand_with_anchor(stub: Stub, table_id: str, seal: bool) -> dict[str, Any]:
    """Fold hands away until the player to act may anchor the next player to act and the
    Carousel has (or lacks) the Seal; returns that player's hand view."""
    for _ in range(80):
        actor = (await hand(stub, table_id))["to_act"]
        mine = await hand(stub, table_id, actor)
        ids = [s["player"] for s in mine["seats"]]
        following = ids[(ids.index(actor) + 1) % len(ids)]
        targets = mine["legal"].get("anchor_targets", [])
        if following in targets and ("seal" in mine["carousel"]) == seal:
            return mine
        kind = "check" if "check" in mine["legal"]["actions"] else "fold"
        await act(stub, table_id, actor, {"action": kind})
    raise AssertionError("no hand offered the Anchor")


async def test_rules_32_34_49_bad_powers_in_naiko_mode() -> None:
    async with running_service("grpc-naiko") as stub:
        table_id = await open_table(stub, {"variant": "naiko", "blinds": [1, 2]})
        mine = await naiko_hand_with_anchor(stub, table_id, seal=True)
        actor = mine["to_act"]
        other = next(s["player"] for s in mine["seats"] if s["player"] != actor)
        # A power out of turn (rule 32).
        await refused(
            stub,
            table_id,
            other,
            {"action": "power", "power": "anchor", "target": actor},
            FAILED,
            "turn",
        )
        # An unknown target: nobody by that name in this hand.
        await refused(
            stub,
            table_id,
            actor,
            {"action": "power", "power": "anchor", "target": "zed"},
            NOT_FOUND,
            "zed",
        )
        # Anchoring oneself; an Anchor without a target.
        await refused(
            stub,
            table_id,
            actor,
            {"action": "power", "power": "anchor", "target": actor},
            FAILED,
            "yourself",
        )
        await refused(
            stub, table_id, actor, {"action": "power", "power": "anchor"}, INVALID, "opponent"
        )
        # A Seal with no Anchor waiting (rule 49), by the player to act and by another.
        await refused(stub, table_id, actor, {"action": "seal"}, FAILED, "Short Anchor")
        await refused(stub, table_id, other, {"action": "seal"}, FAILED, "Short Anchor")
        # An unknown power; a Sleeve Swap of somebody else's card (never says whose).
        await refused(
            stub, table_id, actor, {"action": "power", "power": "teleport"}, INVALID, "unknown"
        )
        own = next(s for s in mine["seats"] if s["player"] == actor)["hole_cards"]
        foreign = next(c for c in ("As", "Kd", "2c") if c not in own)
        assert "swap" in mine["carousel"]  # this seed's hand: {swap, anchor, seal}
        await refused(
            stub,
            table_id,
            actor,
            {"action": "power", "power": "swap", "card": foreign},
            INVALID,
            "your own hole cards",
        )
        # Malformed protobuf actions.
        await refused(stub, table_id, actor, poker_pb2.Action(), INVALID, "action kind")
        await refused(
            stub,
            table_id,
            actor,
            poker_pb2.Action(kind=poker_pb2.ACTION_KIND_POWER),
            INVALID,
            "POWER_PEEK",
        )
        # Not seated at all.
        await refused(stub, table_id, "zed", {"action": "fold"}, NOT_FOUND, "not seated")


async def test_rule_42_a_raise_above_the_anchor_cap_is_refused() -> None:
    async with running_service("grpc-cap") as stub:
        table_id = await open_table(stub, {"variant": "naiko", "blinds": [1, 2]})
        mine = await naiko_hand_with_anchor(stub, table_id, seal=False)
        actor = mine["to_act"]
        ids = [s["player"] for s in mine["seats"]]
        target = ids[(ids.index(actor) + 1) % len(ids)]
        anchor = poker_pb2.Action(
            kind=poker_pb2.ACTION_KIND_POWER, power=poker_pb2.POWER_ANCHOR, target=target
        )
        await act(stub, table_id, actor, anchor)
        # No Seal in the Carousel: no window, the cap applies at once (rule 46).
        await act(stub, table_id, actor, {"action": "call"})
        theirs = await hand(stub, table_id, target)
        assert theirs["to_act"] == target
        legal = theirs["legal"]
        seat = next(s for s in theirs["seats"] if s["player"] == target)
        assert legal["max_raise_to"] < seat["stack"] + seat["bet"]  # pot-limit, not all-in
        kind = "raise" if "raise" in legal["actions"] else "bet"
        over = {"action": kind, "to": legal["max_raise_to"] + 1}
        await refused(stub, table_id, target, over, FAILED, str(legal["max_raise_to"]))
        # Going all-in for more than the cap is refused too (rule 43 keeps the ceiling).
        await refused(stub, table_id, target, {"action": "allin"}, FAILED, "pot limit")
        # A second Anchor on him this round (rule 45): not his turn anyway; the cap holds.
        await act(stub, table_id, target, {"action": kind, "to": legal["max_raise_to"]})


async def test_rule_59_bots_refused_where_the_table_has_none() -> None:
    async with running_service("grpc-bots") as stub:
        request = table_pb2.OpenTableRequest(
            game="poker", options_json=json.dumps({"variant": "nlhe", "bots_allowed": False})
        )
        table_id = (await stub.OpenTable(request)).table_id
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.SeatPlayer(
                table_pb2.SeatPlayerRequest(
                    table_id=table_id, player_id="bot1", seat=0, stack=100, is_bot=True
                )
            )
        assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "bots" in (caught.value.details() or "")
        seated = await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(table_id=table_id, player_id="ann", seat=0, stack=100)
        )
        assert list(seated.view.seated) == ["ann"]


async def test_protobuf_view_carries_the_table_seats_and_anchor_targets() -> None:
    """A protobuf-only client sees every seat (BOT, waiting for the big blind, sitting out),
    the Seal window length, the Destellos kept, and whom it may anchor; sits out by enum."""
    async with running_service("grpc-proto") as stub:
        options = poker_pb2.Options(
            variant=poker_pb2.VARIANT_NAIKO, small_blind=1, big_blind=2, seal_window_seconds=5
        )
        request = table_pb2.OpenTableRequest(options=table_pb2.GameOptions(poker=options))
        request.clock.turn_seconds = 3600
        table_id = (await stub.OpenTable(request)).table_id
        for seat, player in enumerate(PLAYERS):
            await stub.SeatPlayer(
                table_pb2.SeatPlayerRequest(
                    table_id=table_id, player_id=player, seat=seat, stack=500, is_bot=seat == 2
                )
            )
        game = (await view(stub, table_id, "ann")).game.poker
        assert [(s.player_id, s.is_bot, s.waiting_for_big_blind) for s in game.table] == [
            ("ann", False, False),
            ("bob", False, False),
            ("cat", True, True),  # sat down during hand 1
        ]
        assert game.seal_window_seconds == 5
        mine = await naiko_hand_with_anchor(stub, table_id, seal=True)
        actor = mine["to_act"]
        proto = (await view(stub, table_id, actor)).game.poker
        assert list(proto.legal.anchor_targets) == mine["legal"]["anchor_targets"]
        assert poker_pb2.POWER_ANCHOR in proto.legal.powers
        assert (
            dict(proto.table_destellos)
            == json.loads((await view(stub, table_id, actor)).view_json)["table_destellos"]
        )
        other = next(s["player"] for s in mine["seats"] if s["player"] != actor)
        after = await act(
            stub, table_id, other, poker_pb2.Action(kind=poker_pb2.ACTION_KIND_SIT_OUT)
        )
        assert [s.sitting_out for s in after.game.poker.table if s.player_id == other] == [True]
        await refused(
            stub,
            table_id,
            other,
            poker_pb2.Action(kind=poker_pb2.ACTION_KIND_SIT_OUT),
            FAILED,
            "already sitting out",
        )
