"""Rummy tables through the gRPC TableEngine service, as the rummy tests drive them: the
service on an in-memory log and bus, options, bots that read only their own view (some
sending protobuf actions), every message a player received and the scan of it against the
logged deal (hidden information), and the settlement requests' checks (seed 000 §10)."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import json_format

from croupier.common.v1 import common_pb2
from croupier.events.v1.envelope_pb2 import Envelope
from croupier.game.money import CURRENCIES
from croupier.kit.bus.memory import InMemoryBus
from croupier.rummy.engine import ENGINE
from croupier.rummy.tools.view_bot import bot_action
from croupier.rummy.v1 import rummy_pb2
from croupier.table.adapters.sink import EVENTS_TOPIC
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
