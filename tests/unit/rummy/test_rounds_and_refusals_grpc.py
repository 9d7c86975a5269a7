"""Rummy tables through the gRPC TableEngine service (in-memory log and bus).

- options through `GameOptions.rummy` (enums by name, int64 as text) and `options_json`;
  bad options refused with the option named;
- every variant plays whole rounds driven by bots that read only their own view, half of
  them sending `croupier.rummy.v1.Action`s (`ProtoCodec`);
- hidden information: every message a player receives (Seat/Act/GetView/Reconnect
  responses, WatchView streams, error details) shows their own hand, the discard pile,
  the table melds and card counts, and no other card;
- seed 000 §10: each round's settlement request reaches the wallet topic once, with deltas
  that sum to −commission (0: tournament chips carry none) and that the wallet's own check
  accepts; `details` carry the negative points and tournament points (rules 20–23, 33);
- bad input (drawing twice, a card not held, invalid melds, an opening under the minimum,
  a knock over the limit, a lay-off on gin) is refused with a clear status and message,
  and the table does not change.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import grpc
import pytest

from croupier.common.v1 import common_pb2
from croupier.rummy.core.arrangement import best_arrangement
from croupier.rummy.core.cards import card_name, card_names, parse_card, parse_cards
from croupier.rummy.core.melds import InvalidMeld, build_meld
from croupier.rummy.core.notation import remove_cards
from croupier.rummy.core.variant import VariantRules
from croupier.rummy.core.variants import VARIANTS
from croupier.rummy.engine import ENGINE
from croupier.rummy.v1 import rummy_pb2
from croupier.table.core.history import initial_state
from croupier.table.v1 import table_pb2
from tests.support.rummy import (
    CARD_CODES,
    PLAYERS,
    TABLES,
    Received,
    Table,
    check_public_events,
    check_settlements,
    get_view,
    log_entries,
    next_view,
    open_table,
    running_service,
    scan,
)
from tests.support.table import settlements, status_of


async def test_protobuf_and_json_options_reach_the_engine() -> None:
    async with running_service() as service:
        stub = service.stub
        by_proto = await open_table(
            stub,
            "rummy51",
            4,
            round_fee=25,
            chip_ratio=3,
            turn_seconds=17,
            reconnect_seconds=90,
            limit_to_winner_risk=False,
        )
        by_json = await open_table(
            stub, "oklahoma_gin", 2, use_proto=False, round_fee="40", turn_seconds=12
        )
        states = {}
        for table_id in (by_proto, by_json):
            opening = (await log_entries(service.log, table_id))[0]
            states[table_id] = (initial_state(ENGINE, opening), opening.body["clock"])
        proto_state, proto_clock = states[by_proto]
        table = proto_state.engine_state
        assert (table.rules.name, table.players, table.round_fee, table.chip_ratio) == (
            "rummy51",
            4,
            25,
            3,
        )
        assert table.limit_to_winner_risk is False  # explicitly off (OQ 9 flag)
        assert proto_clock["turn_ms"] == 17_000 and proto_clock["reconnect_ms"] == 90_000
        json_state, json_clock = states[by_json]
        table = json_state.engine_state
        assert (table.rules.name, table.players, table.round_fee, table.chip_ratio) == (
            "oklahoma_gin",
            2,
            40,
            2,
        )
        assert table.limit_to_winner_risk is True  # the default
        assert json_clock["turn_ms"] == 12_000
        view = await get_view(stub, by_proto)
        assert view.game.rummy.variant == rummy_pb2.VARIANT_RUMMY51
        assert (view.game.rummy.round_fee, view.game.rummy.chip_ratio) == (25, 3)


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"variant": "canasta"}, "options.variant 'canasta' is not a rummy variant"),
        ({"variant": 5}, "options.variant 5 is not a rummy variant"),
        ({"variant": "gin", "players": 3}, "gin is played by 2 to 2 players, not 3"),
        ({"variant": "rummy51", "players": 5}, "rummy51 is played by 2 to 4 players, not 5"),
        ({"variant": "gin", "round_fee": -5}, "options.round_fee must not be negative"),
        ({"variant": "gin", "chip_ratio": "two"}, "options.chip_ratio must be an integer"),
        ({"variant": "gin", "chip_ratio": 1.5}, "options.chip_ratio must be an integer"),
        ({"variant": "gin", "limit_to_winner_risk": "no"}, "must be true or false"),
        ({"variant": "gin", "turn_secs": 5}, "unknown rummy option(s) turn_secs"),
    ],
)
async def test_bad_options_are_refused_with_the_option_named(
    options: dict[str, Any], says: str
) -> None:
    async with running_service() as service:
        request = table_pb2.OpenTableRequest(game="rummy", options_json=json.dumps(options))
        code, details = await status_of(service.stub.OpenTable(request))
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert says in details


async def test_unknown_protobuf_variant_is_refused() -> None:
    async with running_service() as service:
        unknown = rummy_pb2.Options()
        unknown.ParseFromString(b"\x08\x09")  # variant = 9, from a newer client
        request = table_pb2.OpenTableRequest(options=table_pb2.GameOptions(rummy=unknown))
        code, details = await status_of(service.stub.OpenTable(request))
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert "options.variant 9 is not a rummy variant" in details
        missing = table_pb2.OpenTableRequest(
            options=table_pb2.GameOptions(rummy=rummy_pb2.Options())
        )
        code, details = await status_of(service.stub.OpenTable(missing))
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert "options.variant '' is not a rummy variant" in details


# ---- whole rounds, hidden cards, settlements --------------------------------------------


@pytest.mark.parametrize(("variant", "players"), TABLES)
async def test_rounds_through_grpc_show_each_player_only_their_own_cards(
    variant: str, players: int
) -> None:
    """Rules 20–23, 33 and the hidden-information rule, over every message a player got."""
    seated = PLAYERS[:players]
    async with running_service(f"scan-{variant}") as service:
        stub = service.stub
        table_id = await open_table(stub, variant, players)
        table = Table(service.stub, table_id)
        await table.seat(seated)
        # Refusals (each leaves the table as it was) become part of the scan too.
        to_act = (await table.public())["round"]["to_act"]
        other = next(p for p in seated if p != to_act)
        await table.refused(other, {"action": "draw", "from": "stock"})
        await table.refused(to_act, {"action": "discard", "card": "Ah"})
        public = await table.play(2, proto_players=set(seated[::2]))
        back = await stub.Reconnect(
            table_pb2.ReconnectRequest(table_id=table_id, player_id=seated[-1])
        )
        table.received.view(seated[-1], "reconnect", back.view)
        assert public["last_round"]["round"] == 2
        assert sum(public["stacks"].values()) == 1000 * players  # no chip created or lost
        await scan(service, table_id, table.received)
        assert await check_public_events(service.bus, service.log, table_id) > 10
        details = check_settlements(settlements(service.bus, table_id), table_id, 2, seated)
        assert public["last_round"] == details[-1]


async def test_watch_streams_carry_only_the_watchers_cards() -> None:
    """The WatchView stream of each player, read to the end, passes the same scan."""
    seated = PLAYERS[:3]
    async with running_service("streams") as service:
        stub = service.stub
        table_id = await open_table(stub, "rummy", 3)
        table = Table(service.stub, table_id)
        await table.seat(seated)
        calls = {
            p: stub.WatchView(table_pb2.WatchViewRequest(table_id=table_id, player_id=p))
            for p in seated
        }
        streamed: dict[str, list[table_pb2.TableView]] = {p: [] for p in seated}
        try:
            await table.play(1, proto_players={"bo"})
            final = (await get_view(stub, table_id)).version
            for player, call in calls.items():
                while True:
                    view = await next_view(call)
                    streamed[player].append(view)
                    if view.version >= final:
                        break
        finally:
            for call in calls.values():
                call.cancel()
        received = Received()
        for player, views in streamed.items():
            assert len(views) > 20
            for view in views:
                received.view(player, "stream", view)
        await scan(service, table_id, received)


# ---- bad input ----------------------------------------------------------------------------


async def _drawn(table: Table) -> tuple[str, dict[str, Any]]:
    """The player to act, having drawn from the stock (passing a gin up-card first)."""
    player = (await table.public())["round"]["to_act"]
    view = await table.view(player)
    while view["round"]["phase"] == "first_upcard":
        await table.act(player, {"action": "pass"})
        player = (await table.public())["round"]["to_act"]
        view = await table.view(player)
        if "stock" in view["legal"].get("draw_from", []):
            break
    return player, await table.act(player, {"action": "draw", "from": "stock"})


@pytest.mark.parametrize("variant", ["gin", "rummy51"])
async def test_drawing_twice_and_discarding_a_card_not_held_are_refused(variant: str) -> None:
    async with running_service(f"bad-{variant}") as service:
        table = Table(service.stub, await open_table(service.stub, variant, 2))
        await table.seat(PLAYERS[:2])
        player, view = await _drawn(table)
        code, details = await table.refused(player, {"action": "draw", "from": "stock"})
        assert (code, details) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "you have already drawn this turn",
        )
        code, details = await table.refused(player, {"action": "draw", "from": "discard"}, True)
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        missing = sorted(CARD_CODES - set(view["round"]["hand"]) - {"X5", "X6", "X7", "X8"})[0]
        code, details = await table.refused(player, {"action": "discard", "card": missing}, True)
        assert (code, details) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            f"you do not hold {missing}",
        )
        other = next(p for p in PLAYERS[:2] if p != player)
        code, details = await table.refused(other, {"action": "discard", "card": missing})
        assert (code, details) == (grpc.StatusCode.FAILED_PRECONDITION, f"it is {player}'s turn")
        await scan(service, table.table_id, table.received)


async def test_malformed_actions_are_invalid_argument() -> None:
    async with running_service("malformed") as service:
        table = Table(service.stub, await open_table(service.stub, "rummy", 2))
        await table.seat(PLAYERS[:2])
        player, view = await _drawn(table)
        hand = view["round"]["hand"]
        cases = [
            ({"action": "discard", "card": "Zz"}, "bad card 'Zz'"),
            ({"action": "shuffle"}, "unknown action 'shuffle'"),
            ({"action": "meld", "melds": "7h 8h 9h"}, "'melds' is a list of melds"),
            ({"action": "layoff", "card": hand[0], "meld": 3}, None),
        ]
        for action, says in cases:
            code, details = await table.refused(player, action)
            if says is None:  # not opened yet: the first rule in the way answers
                assert code == grpc.StatusCode.FAILED_PRECONDITION
                assert details == "lay your opening melds first"
            else:
                assert code == grpc.StatusCode.INVALID_ARGUMENT and says in details
        # The protobuf action is checked before the engine sees it.
        for message, says in [
            (rummy_pb2.Action(), "action kind is required"),
            (
                rummy_pb2.Action(kind=rummy_pb2.ACTION_KIND_DISCARD),
                "card is required (a card code",
            ),
            (
                rummy_pb2.Action(
                    kind=rummy_pb2.ACTION_KIND_DISCARD,
                    card=common_pb2.Card(code=hand[0]),
                    meld_index=2,
                ),
                "ACTION_KIND_DISCARD does not carry meld_index",
            ),
            (
                rummy_pb2.Action(
                    kind=rummy_pb2.ACTION_KIND_DISCARD, card=common_pb2.Card(code="1h")
                ),
                "card: bad card '1h'",
            ),
            (rummy_pb2.Action(kind=rummy_pb2.ACTION_KIND_MELD), "ACTION_KIND_MELD carries melds"),
        ]:
            request = table.request(player, {"action": "pass"}, proto=True)
            request.action.rummy.CopyFrom(message)
            before = await get_view(service.stub, table.table_id, player)
            code, details = await status_of(service.stub.Act(request))
            assert code == grpc.StatusCode.INVALID_ARGUMENT
            assert says in details
            after = await get_view(service.stub, table.table_id, player)
            assert after.version == before.version


def _low_meld(view: dict[str, Any]) -> list[str] | None:
    """A meld in the player's own hand (from the view) worth less than the opening minimum."""
    rules = VARIANTS[view["round"]["variant"]]
    hand = parse_cards(view["round"]["hand"])
    for meld in best_arrangement(hand, rules.melds, rules.values).melds:
        built = build_meld([(c, None) for c in meld], rules.melds)
        if rules.opening_value(built.stands_for, built.low, built.kind) < rules.opening_minimum:
            return card_names(built.cards)
    return None


async def test_invalid_melds_and_an_opening_under_the_minimum_are_refused() -> None:
    """Rummy 51: an opening must reach 51 (checked when the turn ends)."""
    for attempt in range(30):
        async with running_service(f"open-{attempt}") as service:
            table = Table(service.stub, await open_table(service.stub, "rummy51", 2))
            await table.seat(PLAYERS[:2])
            player, view = await _drawn(table)
            low = _low_meld(view)
            if low is None:
                continue
            hand = view["round"]["hand"]
            rules = VARIANTS["rummy51"]
            junk = next(
                list(trio)
                for trio in itertools.combinations(hand, 3)
                if not _is_meld(rules, list(trio))
            )
            code, details = await table.refused(player, {"action": "meld", "melds": [junk]}, True)
            assert code == grpc.StatusCode.INVALID_ARGUMENT and details
            assert not set(details.split()) & (CARD_CODES - set(junk))
            not_held = sorted({"Ac", "2c", "3c"} - set(hand))
            if len(not_held) == 3:
                code, details = await table.refused(player, {"action": "meld", "melds": [not_held]})
                assert (code, details) == (
                    grpc.StatusCode.FAILED_PRECONDITION,
                    "the meld uses cards you do not hold",
                )
            after = await table.act(player, {"action": "meld", "melds": [low]}, proto=True)
            assert after["round"]["melds"][-1]["owner"] == player
            rest = after["round"]["hand"]
            code, details = await table.refused(player, {"action": "discard", "card": rest[0]})
            assert code == grpc.StatusCode.FAILED_PRECONDITION
            assert details.startswith("the opening melds count ")
            assert details.endswith("; at least 51")
            await scan(service, table.table_id, table.received)
            return
    raise AssertionError("no deal gave a low meld")


def _is_meld(rules: VariantRules, cards: list[str]) -> bool:
    try:
        build_meld([(parse_card(c), None) for c in cards], rules.melds)
    except InvalidMeld:
        return False
    return True


async def test_knock_over_the_limit_is_refused() -> None:
    async with running_service("knock") as service:
        table = Table(service.stub, await open_table(service.stub, "gin", 2))
        await table.seat(PLAYERS[:2])
        player, view = await _drawn(table)
        rules = VARIANTS["gin"]
        hand = parse_cards(view["round"]["hand"])
        card = max(hand, key=lambda c: rules.values[c])
        rest = remove_cards(hand, [card]) or ()
        arrangement = best_arrangement(rest, rules.melds, rules.values)
        assert arrangement.deadwood > 10, "this seed's hand can knock; pick another seed"
        action = {
            "action": "knock",
            "discard": card_name(card),
            "melds": [card_names(m) for m in arrangement.melds],
        }
        code, details = await table.refused(player, action, proto=True)
        assert (code, details) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            f"deadwood {arrangement.deadwood} is over the knock limit 10",
        )
        code, details = await table.refused(player, {**action, "action": "gin"})
        assert (code, details) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            f"gin needs no deadwood; {arrangement.deadwood} left",
        )
        await scan(service, table.table_id, table.received)


async def test_no_layoffs_on_gin() -> None:
    """OQ 13: no lay-offs on gin. Stacks of fee + 1 chip: the first win busts the loser, so
    no next round is dealt and the finished gin is what the lay-off meets."""
    for attempt in range(20):
        async with running_service(f"gin-{attempt}") as service:
            table = Table(service.stub, await open_table(service.stub, "gin", 2, chip_ratio=1))
            await table.seat(PLAYERS[:2], stack=31)
            public = await table.play(30, knock_at=0)  # plays for gin only
            last = public["last_round"]
            if last["ending"] != "gin":
                continue  # a drawn round is re-dealt; a win busts the loser
            loser = next(p for p in PLAYERS[:2] if p != last["winner"])
            assert public["stacks"][loser] == 0 and public["round"]["to_act"] is None
            view = await table.view(loser)
            code, details = await table.refused(
                loser, {"action": "layoff", "card": view["round"]["hand"][0], "meld": 0}
            )
            assert (code, details) == (grpc.StatusCode.FAILED_PRECONDITION, "no lay-offs on gin")
            code, details = await table.refused(loser, {"action": "draw", "from": "stock"}, True)
            assert (code, details) == (grpc.StatusCode.FAILED_PRECONDITION, "the hand is over")
            # The finished round as the loser sees it (the protobuf view too).
            message = (await get_view(service.stub, table.table_id, loser)).game.rummy
            assert message.phase == rummy_pb2.PHASE_OVER
            assert message.result.ending == rummy_pb2.ENDING_GIN
            assert message.result.winner == last["winner"]
            assert dict(message.result.deltas) == last["deltas"]
            assert message.last_round == message.result
            await scan(service, table.table_id, table.received)
            found = settlements(service.bus, table.table_id)
            check_settlements(found, table.table_id, last["round"], PLAYERS[:2])
            return
    raise AssertionError("no gin came up")


async def test_rule_10_a_short_stack_is_dealt_in_and_an_empty_seat_is_refused() -> None:
    """Rule 10 / OQ 8: fewer chips than the fee still play; a seat without chips cannot."""
    async with running_service("short") as service:
        stub = service.stub
        table_id = await open_table(stub, "gin", 2, round_fee=30)
        code, details = await status_of(
            stub.SeatPlayer(table_pb2.SeatPlayerRequest(table_id=table_id, player_id="ada"))
        )
        assert (code, details) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "a rummy seat needs chips (stack > 0)",
        )
        table = Table(stub, table_id)
        for seat, (player, stack) in enumerate([("ada", 10), ("bo", 500)]):
            await stub.SeatPlayer(
                table_pb2.SeatPlayerRequest(
                    table_id=table_id, player_id=player, seat=seat, stack=stack
                )
            )
        public = await table.play(1)
        last = public["last_round"]
        assert last["fees"] == {"ada": 10, "bo": 30}  # all of ada's chips, and she played
        assert last["pot"] == 40
