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
from collections import Counter
from collections.abc import Iterable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from croupier.common.v1 import common_pb2
from croupier.events.v1.envelope_pb2 import Envelope
from croupier.game.money import CURRENCIES
from croupier.kit.bus.memory import InMemoryBus
from croupier.rummy.core.arrangement import best_arrangement
from croupier.rummy.core.cards import Card, card_name, card_names, parse_card, parse_cards
from croupier.rummy.core.melds import InvalidMeld, MeldEntry, TableMeld, build_meld, lay_off
from croupier.rummy.core.notation import remove_cards
from croupier.rummy.core.variant import Family, VariantRules
from croupier.rummy.core.variants import VARIANTS
from croupier.rummy.engine import ENGINE
from croupier.rummy.v1 import rummy_pb2
from croupier.table.adapters.sink import EVENTS_TOPIC, WALLET_REQUESTS_TOPIC
from croupier.table.core.history import initial_state
from croupier.table.core.log_entry import LogEntry
from croupier.table.core.table_state import step
from croupier.table.ports import CommandLog
from croupier.table.service.money import Buyins
from croupier.table.v1 import table_pb2, table_pb2_grpc
from croupier.wallet.core.settlement import check_engine_result
from tests.support.table import FakeClock, ServedHost, served_memory_host, status_of

PLAYERS = ["ada", "bo", "cy", "di"]
CARD_CODES = {r + s for r in "A23456789TJQK" for s in "cdhs"} | {f"X{n}" for n in range(1, 9)}
TABLES = [  # variant, players
    ("gin", 2),
    ("oklahoma_gin", 2),
    ("rummy", 3),
    ("rummy51", 4),
    ("rummy40", 3),
    ("rummy500", 2),
]


# ---- the service -------------------------------------------------------------------------


def running_service(
    seeds: str = "rummy", clock: FakeClock | None = None
) -> AbstractAsyncContextManager[ServedHost]:
    """The TableEngine gRPC service in this process, on the in-memory log and bus (on
    `clock`'s time, when given)."""
    return served_memory_host(seeds, clock, buyins=Buyins(play_currencies=()))


def proto_options(variant: str, players: int, **fields: Any) -> table_pb2.GameOptions:
    options = rummy_pb2.Options(
        variant=rummy_pb2.Variant.Value(f"VARIANT_{variant.upper()}"), players=players, **fields
    )
    return table_pb2.GameOptions(rummy=options)


async def open_table(
    stub: table_pb2_grpc.TableEngineAsyncStub,
    variant: str,
    players: int,
    *,
    use_proto: bool = True,
    **fields: Any,
) -> str:
    fields.setdefault("round_fee", 30)
    fields.setdefault("chip_ratio", 2)
    if use_proto:
        request = table_pb2.OpenTableRequest(options=proto_options(variant, players, **fields))
    else:
        document = {"variant": variant, "players": players, **fields}
        request = table_pb2.OpenTableRequest(game="rummy", options_json=json.dumps(document))
    return (await stub.OpenTable(request)).table_id


async def next_view(call: Any) -> table_pb2.TableView:
    """The next view a WatchView stream delivers (the stream must not have ended)."""
    response = await call.read()
    assert isinstance(response, table_pb2.WatchViewResponse), response
    return response.view


async def get_view(
    stub: table_pb2_grpc.TableEngineAsyncStub, table_id: str, player: str = ""
) -> table_pb2.TableView:
    request = table_pb2.GetViewRequest(table_id=table_id, player_id=player)
    return (await stub.GetView(request)).view


# ---- a bot that reads only its own view ---------------------------------------------------


def _deadwood(rules: VariantRules, cards: Iterable[Card]) -> int:
    return best_arrangement(tuple(cards), rules.melds, rules.values).deadwood


def _best_discard(
    rules: VariantRules, hand: list[Card], choices: Iterable[Card]
) -> tuple[int, Card]:
    scored = [
        (_deadwood(rules, remove_cards(hand, [card]) or ()), -rules.values[card], card)
        for card in sorted(set(choices))
    ]
    best = min(scored)
    return best[0], best[2]


def table_melds(rules: VariantRules, melds: list[dict[str, Any]]) -> list[TableMeld]:
    """The table's melds rebuilt from the view (jokers where the view says they stand)."""
    built = []
    for meld in melds:
        entries: list[MeldEntry] = [
            (parse_card(c), None)
            if isinstance(c, str)
            else (parse_card(c["card"]), parse_card(c["as"]))
            for c in meld["cards"]
        ]
        built.append(build_meld(entries, rules.melds, meld["owner"]))
    return built


def _layoff(rules: VariantRules, hand: list[Card], melds: list[dict[str, Any]]) -> Any:
    for card in sorted(set(hand)):
        for index, meld in enumerate(table_melds(rules, melds)):
            try:
                lay_off(meld, card, None, rules.melds)
            except InvalidMeld:
                continue
            return {"action": "layoff", "card": card_name(card), "meld": index}
    return None


def gin_action(view: dict[str, Any], knock_at: int | None = None) -> dict[str, Any]:
    seen, legal = view["round"], view["legal"]
    rules = VARIANTS[seen["variant"]]
    hand = parse_cards(seen["hand"])
    actions = legal["actions"]
    if seen["phase"] in ("first_upcard", "draw"):
        if "discard" in legal.get("draw_from", []) and seen["discard_pile"]:
            upcard = parse_card(seen["discard_pile"][-1])
            kept = [c for c in hand]  # the up-card itself may not go straight back
            after, _ = _best_discard(rules, [*hand, upcard], kept)
            if after < _deadwood(rules, hand):
                return {"action": "draw", "from": "discard"}
        return {"action": "pass"} if "pass" in actions else {"action": "draw", "from": "stock"}
    if seen["phase"] == "discard":
        deadwood, card = _best_discard(rules, hand, parse_cards(legal["discards"]))
        limit = seen["knock_limit"] if knock_at is None else min(knock_at, seen["knock_limit"])
        if deadwood <= limit and "knock" in actions:
            rest = remove_cards(hand, [card]) or ()
            melds = best_arrangement(rest, rules.melds, rules.values).melds
            return {
                "action": "gin" if deadwood == 0 else "knock",
                "discard": card_name(card),
                "melds": [card_names(m) for m in melds],
            }
        return {"action": "discard", "card": card_name(card)}
    assert seen["phase"] == "layoff", seen["phase"]
    now = _deadwood(rules, hand)
    layoff = _layoff(rules, hand, seen["melds"])
    if layoff is not None:
        rest = remove_cards(hand, [parse_card(layoff["card"])]) or ()
        if _deadwood(rules, rest) < now:
            return dict(layoff)
    return {"action": "pass"}


def laydown_action(view: dict[str, Any], me: str) -> dict[str, Any]:
    seen = view["round"]
    rules = VARIANTS[seen["variant"]]
    if seen["phase"] == "draw":
        return {"action": "draw", "from": "stock"}
    hand = parse_cards(seen["hand"])
    opened = any(meld["owner"] == me for meld in seen["melds"])
    arrangement = best_arrangement(hand, rules.melds, rules.values)
    if arrangement.melds:
        melds = [build_meld([(c, None) for c in meld], rules.melds) for meld in arrangement.melds]
        value = sum(rules.opening_value(m.stands_for, m.low, m.kind) for m in melds)
        if opened or value >= rules.opening_minimum:
            written = [card_names(m.cards) for m in melds]
            left = arrangement.deadwood_cards
            if not left:
                return {"action": "out", "melds": written}
            if len(left) == 1:
                return {"action": "out", "melds": written, "discard": card_name(left[0])}
            return {"action": "meld", "melds": written}
    if opened and len(hand) > 1:
        layoff = _layoff(rules, hand, seen["melds"])
        if layoff is not None:
            return dict(layoff)
    choices = arrangement.deadwood_cards or tuple(hand)
    worst = max(choices, key=lambda card: (rules.values[card], card))
    return {"action": "discard", "card": card_name(worst)}


def bot_action(view: dict[str, Any], me: str, knock_at: int | None = None) -> dict[str, Any]:
    """A simple player using nothing but `me`'s own view (and the variant's public rules)."""
    if VARIANTS[view["variant"]].family is Family.KNOCK:
        return gin_action(view, knock_at)
    return laydown_action(view, me)


_KINDS = {
    "pass": rummy_pb2.ACTION_KIND_PASS,
    "meld": rummy_pb2.ACTION_KIND_MELD,
    "layoff": rummy_pb2.ACTION_KIND_LAYOFF,
    "discard": rummy_pb2.ACTION_KIND_DISCARD,
    "knock": rummy_pb2.ACTION_KIND_KNOCK,
    "gin": rummy_pb2.ACTION_KIND_GIN,
    "out": rummy_pb2.ACTION_KIND_OUT,
}


def as_proto(action: dict[str, Any]) -> rummy_pb2.Action:
    """The same action as a `croupier.rummy.v1.Action` (written here, not by the codec)."""
    kind = action["action"]
    if kind == "draw":
        source = action["from"]
        message = rummy_pb2.Action(
            kind=rummy_pb2.ACTION_KIND_DRAW_STOCK
            if source == "stock"
            else rummy_pb2.ACTION_KIND_DRAW_DISCARD,
            count=action.get("count", 0),
        )
        return message
    message = rummy_pb2.Action(kind=_KINDS[kind])
    if "card" in action:
        message.card.code = action["card"]
    if "meld" in action:
        message.meld_index = action["meld"]
    if "discard" in action:
        message.discard.code = action["discard"]
    for meld in action.get("melds", []):
        written = message.melds.add()
        for card in meld:
            entry = written.cards.add()
            if isinstance(card, str):
                entry.card.code = card
            else:
                entry.card.code = card["card"]
                getattr(entry, "as").code = card["as"]
    return message


# ---- what each player received ------------------------------------------------------------


@dataclass
class Received:
    """Every message players got over gRPC, for the hidden-cards scan."""

    views: list[tuple[str, str, table_pb2.TableView]] = field(default_factory=list)
    errors: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)

    def view(self, player: str, source: str, view: table_pb2.TableView) -> dict[str, Any]:
        self.views.append((player, source, view))
        decoded: dict[str, Any] = json.loads(view.view_json)
        return decoded


class Table:
    """One table driven through gRPC; every response is recorded."""

    def __init__(
        self,
        stub: table_pb2_grpc.TableEngineAsyncStub,
        table_id: str,
        received: Received | None = None,
    ):
        self.stub = stub
        self.table_id = table_id
        self.received = received or Received()
        self.commands = itertools.count()

    async def seat(self, players: list[str], stack: int = 1000) -> None:
        for seat, player in enumerate(players):
            response = await self.stub.SeatPlayer(
                table_pb2.SeatPlayerRequest(
                    table_id=self.table_id, player_id=player, seat=seat, stack=stack
                )
            )
            self.received.view(player, "seat", response.view)

    async def view(self, player: str) -> dict[str, Any]:
        return self.received.view(player, "get", await get_view(self.stub, self.table_id, player))

    async def public(self) -> dict[str, Any]:
        decoded: dict[str, Any] = json.loads((await get_view(self.stub, self.table_id)).view_json)
        return decoded

    def request(self, player: str, action: dict[str, Any], proto: bool) -> table_pb2.ActRequest:
        request = table_pb2.ActRequest(
            table_id=self.table_id, player_id=player, command_id=f"{player}/{next(self.commands)}"
        )
        if proto:
            request.action.rummy.CopyFrom(as_proto(action))
        else:
            request.action_json = json.dumps(action)
        return request

    async def act(self, player: str, action: dict[str, Any], proto: bool = False) -> dict[str, Any]:
        response = await self.stub.Act(self.request(player, action, proto))
        return self.received.view(player, "act", response.view)

    async def refused(
        self, player: str, action: dict[str, Any], proto: bool = False
    ) -> tuple[grpc.StatusCode, str]:
        """Send an action that must be refused; the table must not change."""
        before = await get_view(self.stub, self.table_id, player)
        code, details = await status_of(self.stub.Act(self.request(player, action, proto)))
        self.received.errors.append((player, action, details))
        after = await get_view(self.stub, self.table_id, player)
        assert (after.version, after.view_json) == (before.version, before.view_json)
        return code, details

    async def play(
        self,
        rounds: int,
        proto_players: set[str] | frozenset[str] = frozenset(),
        knock_at: int | None = None,
        max_actions: int = 4000,
    ) -> dict[str, Any]:
        """Bots play until `rounds` rounds ended (or no round can start); the public view."""
        for _ in range(max_actions):
            public = await self.public()
            last = public["last_round"]
            if last is not None and last["round"] >= rounds:
                return public
            player = public["round"]["to_act"] if public.get("round") else None
            if player is None:
                return public  # nobody to act: no round could start
            mine = await self.view(player)
            action = bot_action(mine, player, knock_at)
            assert action["action"] in mine["legal"]["actions"], (action, mine["legal"])
            await self.act(player, action, proto=player in proto_players)
        raise AssertionError(f"{rounds} rounds did not end in {max_actions} actions")


async def log_entries(log: CommandLog, table_id: str) -> list[LogEntry]:
    return [e async for table in log.replay() if table.table_id == table_id for e in table.entries]


async def truth(log: CommandLog, table_id: str) -> dict[int, dict[str, Any]]:
    """The engine's whole state (hidden cards included) after each log index."""
    entries = await log_entries(log, table_id)
    state = initial_state(ENGINE, entries[0])
    snapshots = {state.index: ENGINE.snapshot(state.engine_state)}
    for entry in entries[1:]:
        state = step(ENGINE, state, entry).state
        snapshots[state.index] = ENGINE.snapshot(state.engine_state)
    return snapshots


def cards_in(value: Any) -> Counter[str]:
    """Every card code anywhere in a decoded JSON value, counted."""
    if isinstance(value, str):
        return Counter([value]) if value in CARD_CODES else Counter()
    found: Counter[str] = Counter()
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    for item in items:
        found += cards_in(item)
    return found


def check_only_own_cards(player: str, view: table_pb2.TableView, snap: dict[str, Any]) -> None:
    """`view` (JSON and protobuf) shows `player`'s hand, the pile, the melds, card counts."""
    decoded = json.loads(view.view_json)
    game = json_format.MessageToDict(view.game.rummy, preserving_proto_field_name=True)
    truth_round = snap["round"]
    seen = decoded.get("round")
    if truth_round is None:
        assert seen is None and not cards_in(decoded) and not cards_in(game)
        return
    hands = truth_round["hands"]
    own = hands.get(player, [])
    assert Counter(seen["hand"]) == Counter(own)
    assert seen["discard_pile"] == truth_round["discard_pile"]
    assert seen["melds"] == truth_round["melds"]
    assert seen["card_counts"] == {p: len(h) for p, h in hands.items()}
    legal = decoded.get("legal", {})
    assert not cards_in(legal) - Counter(own)  # legal choices name own cards only
    visible = cards_in(seen["hand"]) + cards_in(seen["discard_pile"]) + cards_in(seen["melds"])
    rest = {k: v for k, v in decoded.items() if k not in ("round", "legal")}
    rest["round"] = {k: v for k, v in seen.items() if k not in ("hand", "discard_pile", "melds")}
    assert not cards_in(rest), f"cards outside hand/pile/melds: {cards_in(rest)}"
    # The protobuf view says the same and no more.
    assert [c["code"] for c in game.get("hand", [])] == seen["hand"]
    assert [c["code"] for c in game.get("discard_pile", [])] == seen["discard_pile"]
    outside_legal = {k: v for k, v in game.items() if k != "legal"}
    assert not cards_in_proto(outside_legal) - visible
    assert not cards_in_proto(game.get("legal", {})) - Counter(own)


def cards_in_proto(value: Any) -> Counter[str]:
    found: Counter[str] = Counter()
    if isinstance(value, dict):
        if set(value) == {"code"}:
            return Counter([value["code"]])
        for item in value.values():
            found += cards_in_proto(item)
    elif isinstance(value, list):
        for item in value:
            found += cards_in_proto(item)
    return found


async def scan(service: ServedHost, table_id: str, received: Received) -> None:
    await scan_log(service.log, table_id, received)


async def scan_log(log: CommandLog, table_id: str, received: Received) -> None:
    """Every received message checked against the table's state at the message's version."""
    snapshots = await truth(log, table_id)
    assert received.views
    for player, _source, view in received.views:
        check_only_own_cards(player, view, snapshots[view.version])
    for _player, action, details in received.errors:
        named = cards_in(action)
        said = Counter(code for code in CARD_CODES if code in details.split())
        said += Counter(code for code in CARD_CODES if f" {code}" in details)
        assert not set(said) - set(named), f"error {details!r} names cards not asked about"


async def check_public_events(bus: InMemoryBus, log: CommandLog, table_id: str) -> int:
    """Events on `croupier.table.events` name only cards that were public when published:
    in the discard pile or on the table just before or just after the command, or the
    deadwood a knocker shows (gin rules). Returns how many events named cards."""
    snapshots = await truth(log, table_id)
    naming = 0
    for message in bus.messages(EVENTS_TOPIC):
        envelope = Envelope.FromString(message.value or b"")
        if envelope.subject != table_id:
            continue
        taken = table_pb2.ActionTaken()
        assert envelope.payload.Unpack(taken)
        event = json.loads(taken.public_json)
        named = cards_in(event)
        if not named:
            continue
        naming += 1
        public: Counter[str] = Counter()
        for index in (envelope.sequence - 1, envelope.sequence):
            seen = snapshots[index]["round"]
            if seen is not None:
                public |= cards_in(seen["discard_pile"]) + cards_in(seen["melds"])
        if event["type"] == "Knocked":
            public += Counter(event["deadwood_cards"])
        assert not named - public, f"{event} names hidden cards {named - public}"
    return naming


def settlements(bus: InMemoryBus, table_id: str) -> list[table_pb2.SettlementRequested]:
    """The settlement requests the host published for `table_id`, in order."""
    found = []
    for message in bus.messages(WALLET_REQUESTS_TOPIC):
        envelope = Envelope.FromString(message.value or b"")
        if envelope.subject != table_id or envelope.type != "wallet.settlement_requested":
            continue
        settlement = table_pb2.SettlementRequested()
        assert envelope.payload.Unpack(settlement)
        found.append(settlement)
    return found


def check_settlements(
    found: list[table_pb2.SettlementRequested], table_id: str, rounds: int, players: list[str]
) -> list[dict[str, Any]]:
    """Rules 20–23, 33: once per round, balanced, accepted by the wallet's own check;
    rule 9: a player a round leaves with 0 chips is eliminated, in no later round."""
    assert [s.hand_number for s in found] == list(range(1, rounds + 1))
    details = []
    in_play = list(players)
    for settlement in found:
        assert settlement.idempotency_key == f"{table_id}:{settlement.hand_number}"
        assert settlement.game == common_pb2.GAME_RUMMY
        deltas = dict(settlement.deltas)
        assert set(deltas) == set(in_play)
        commission = dict(settlement.commission)
        assert sum(deltas.values()) == -sum(commission.values()) == 0
        check_engine_result(deltas, commission, CURRENCIES[settlement.currency], expected=None)
        detail = json.loads(settlement.details_json)
        assert detail["deltas"] == deltas
        if detail["winner"] is None:  # a drawn round: fees back, nothing moves (OQ 24)
            assert set(deltas.values()) == {0} and detail["tournament_points"] == {}
        else:
            winner = detail["winner"]
            losers = [p for p in in_play if p != winner]
            assert set(detail["penalty"]) == set(losers)
            assert detail["tournament_points"][winner] == 3
            worst = max(detail["penalty"].values())
            for loser in losers:  # rule 33 / OQ 16
                points = 1 if detail["penalty"][loser] == worst else 2
                assert detail["tournament_points"][loser] == points
            assert deltas[winner] == detail["chips_won"] - detail["fees"][winner]
            assert detail["chips_won"] == detail["pot"] + sum(detail["chips_paid"].values())
        in_play = [p for p in in_play if p not in detail["eliminated"]]
        details.append(detail)
    return details


# ---- options ------------------------------------------------------------------------------


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
