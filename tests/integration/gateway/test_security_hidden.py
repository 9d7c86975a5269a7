"""No hidden information leaves the gateway (issue #20). Players play through the gateway with
their own tokens (200 hands of poker, 40 hands of Naiko poker whose players use their powers,
a game of Joker to its end), every call over gRPC and, every fifth hand, over gRPC-Web, while
each player also watches the table on a view stream over gRPC and another over gRPC-Web.
Every message each one receives, answers and stream messages alike, is scanned:

- it names no card another player held or was shown privately in that hand (his hole cards,
  or in Naiko the card his Sneak Peek showed him and the card his Sleeve Swap brought him)
  that the public view of the same version does not show (a showdown, a board card, a card
  played to a trick);
- every card it names is shown in the public view of that version or is the player's own
  (his hand, his own powers' results): no card of the undealt deck, no card a swap discarded;
- poker: every card it names is one the host's own command log, replayed by the engine, says
  he may see at that version (the board, a showdown, his hole cards and power results), so a
  card leaked into every view, the public one included, is caught too.

What each player may see at each version is read from the host itself, on streams of its
own, and each message is the host's view of its player at its version. The poker run checks
its 200 hands were played to their end; the Naiko run that its powers were used (over both
transports), so the scan of their private results is not vacuous."""

from __future__ import annotations

import asyncio
import functools
import http.client
import json
import random
import re
import socket
import struct
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from croupier.game import ClockSettings
from croupier.gateway.core.rate_limits import RateLimit
from croupier.gateway.service.limits import GatewayLimits
from croupier.gateway.v1 import gateway_pb2 as pb
from croupier.joker.core.cards import DECK as JOKER_DECK
from croupier.kit.bus.memory import InMemoryBus
from croupier.poker.core import cards as poker_cards
from croupier.poker.core import naiko
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.bootstrap import table_service
from croupier.table.core.history import initial_state
from croupier.table.core.log_entry import applicable
from croupier.table.core.table_state import step
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.v1 import table_pb2
from tests.support.games import GAMES, GameAtTable, strings_in
from tests.support.gateway import (
    SERVICE_PATH,
    ServedGateway,
    bearer,
    grpc_web_call,
    served_gateway,
    token,
)
from tests.support.table import Seeds

pytestmark = pytest.mark.timeout(120)

JSON = dict[str, Any]
HOUR = ClockSettings(turn_ms=3_600_000, reconnect_ms=3_600_000)
# Bots call as fast as the gateway answers: no limit should hold them back here.
UNLIMITED = GatewayLimits(
    per_player=RateLimit(rate=100_000, burst=100_000),
    per_address=RateLimit(rate=100_000, burst=100_000),
)
# A card code standing alone (a JSON string, or a word in a text): `As`, `Td`, Joker's `X1`.
CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs]|X[12])(?![A-Za-z0-9])")


@dataclass(frozen=True)
class Case:
    """A table to play: `hands` hands of poker to finish (0: a game played to its end, Joker),
    at most `max_actions` actions; `cards` every card of the game's deck."""

    game: GameAtTable
    hands: int
    max_actions: int
    cards: frozenset[str]


NAIKO = GameAtTable(
    "poker",
    {"variant": "naiko", "blinds": [1, 2], "seats": 4},
    ("n0", "n1", "n2", "n3"),
    100,
    True,
)
CASES = {
    "poker": Case(GAMES["poker"], 200, 4_000, frozenset(poker_cards.NAMES)),
    "naiko": Case(NAIKO, 40, 4_000, frozenset(poker_cards.NAMES)),
    "joker": Case(GAMES["joker"], 0, 2_000, frozenset(c.code for c in JOKER_DECK)),
}
# The Naiko run is not vacuous: at least this many powers of each kind were used, and at
# least this many messages went to a player while another's power result was hidden from him.
MIN_POWERS = {"peek": 30, "swap": 20, "anchor": 8}
MIN_GUARDED_PRIVATE = 1_000


def private_results(view: JSON) -> set[str]:
    """The cards Naiko powers showed only this viewer (`hand.private`: his Sneak Peek's card,
    his Sleeve Swap's new card)."""
    private = (view.get("hand") or {}).get("private") or {}
    return {private[key] for key in ("peeked", "swapped_in") if key in private}


def hand_key(view: JSON) -> int:
    """The hand a view belongs to (poker's table `hand_number`, Joker's `hand.number`)."""
    number = view.get("hand_number") or (view.get("hand") or {}).get("number") or 0
    return int(number)


@dataclass
class Truth:
    """What the host showed each viewer ("" the public) at each version, on its own streams."""

    game: GameAtTable
    seen: dict[str, dict[int, JSON]] = field(default_factory=dict)
    finished: set[int] = field(default_factory=set)
    """Every `last_finished_hand` the host's public stream showed."""
    _public: dict[int, set[str]] = field(default_factory=dict)
    _in_hand: dict[tuple[int, str], set[str]] | None = None

    async def follow(self, host: TableHost, table_id: str, viewer: str) -> None:
        versions = self.seen.setdefault(viewer, {})
        async for snapshot in host.watch(table_id, viewer):
            versions[snapshot.version] = json.loads(json.dumps(snapshot.view))
            if not viewer:
                self.finished.add(snapshot.last_finished_hand)

    def public(self, version: int) -> set[str]:
        """Every string the public view of `version` shows."""
        if version not in self._public:
            assert version in self.seen[""], f"the host never showed version {version}"
            self._public[version] = strings_in(self.seen[""][version])
        return self._public[version]

    def own(self, player: str, version: int) -> set[str]:
        """What `player` alone may see at `version`: his cards and his powers' results."""
        view = self.seen[player][version]
        return self.game.secrets(player, view) | private_results(view)

    def held_in_hand(self, hand: int, player: str) -> set[str]:
        """Every card `player` held or was shown privately at any version of `hand` (a card
        swapped away, or peeked at before it was dealt, stays his secret)."""
        if self._in_hand is None:
            self._in_hand = {}
            for viewer in self.game.players:
                for version, view in self.seen[viewer].items():
                    key = (hand_key(view), viewer)
                    self._in_hand.setdefault(key, set()).update(self.own(viewer, version))
        return self._in_hand.get((hand, player), set())

    def foreign(self, player: str, version: int) -> set[str]:
        """The other players' secrets of this hand the public view of `version` does not show.
        A card this player's own power showed him is not foreign to him (no burn cards, OQ 7:
        a swap after his preflop peek brings the peeked card to the swapper)."""
        hand = hand_key(self.seen[""][version])
        others = [p for p in self.game.players if p != player]
        cards = set().union(*(self.held_in_hand(hand, p) for p in others))
        return cards - self.public(version) - private_results(self.seen[player][version])

    def foreign_private(self, player: str, version: int) -> set[str]:
        """The other players' private power results at `version` hidden from `player`."""
        others = [p for p in self.game.players if p != player]
        cards = set().union(*(private_results(self.seen[p][version]) for p in others))
        return cards - self.public(version) - self.own(player, version)

    def allowed(self, player: str, version: int) -> set[str]:
        """What a message of `version` may show `player`: the public view and his own."""
        return self.public(version) | self.own(player, version)


@functools.lru_cache(maxsize=1024)
def _game_json(game: bytes) -> str:
    return json_format.MessageToJson(table_pb2.GameView.FromString(game), indent=None)


def _sent(view: table_pb2.TableView) -> str:
    """Everything a view says: its `view_json`, then every other field as JSON (the protobuf
    game view among them; a card is a JSON string wherever it appears). A game view already
    converted (the same version on another stream) is not converted again."""
    rest = table_pb2.TableView()
    rest.CopyFrom(view)
    rest.ClearField("view_json")
    rest.ClearField("game")
    game = _game_json(view.game.SerializeToString(deterministic=True))
    return "\n".join((view.view_json, game, json_format.MessageToJson(rest, indent=None)))


@dataclass
class Received:
    """Every view one player received from the gateway, with how it came."""

    player: str
    views: list[tuple[str, table_pb2.TableView]] = field(default_factory=list)


async def watch_grpc(gateway: ServedGateway, table_id: str, received: Received) -> None:
    request = pb.WatchTableRequest(table_id=table_id)
    call = gateway.stub.WatchTable(request, metadata=bearer(received.player, now=time.time()))
    try:
        async for response in call:
            received.views.append(("grpc stream", response.view))
    except grpc.aio.AioRpcError as error:
        assert error.code() == grpc.StatusCode.CANCELLED, error


def _read_grpc_web_stream(
    url: str, body: bytes, authorization: str, received: Received, stop: threading.Event
) -> tuple[http.client.HTTPConnection, threading.Thread]:
    """Open a gRPC-Web server stream (a browser's fetch); a thread (returned with the
    connection) reads its frames into `received` as they come, until `stop` or the
    connection's socket is shut."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.netloc, timeout=60)
    headers = {
        "Content-Type": "application/grpc-web+proto",
        "X-Grpc-Web": "1",
        "Authorization": authorization,
    }
    connection.request("POST", parts.path, body=body, headers=headers)
    response = connection.getresponse()
    assert response.status == 200

    def read() -> None:
        try:
            while not stop.is_set():
                header = response.read(5)
                if len(header) < 5:
                    return
                flags, length = struct.unpack(">BI", header)
                frame = response.read(length)
                if not flags & 0x80:  # a message, not the trailers
                    received.views.append(
                        ("grpc-web stream", pb.WatchTableResponse.FromString(frame).view)
                    )
        except (OSError, ValueError, http.client.HTTPException):
            return  # the socket shut at the end of the test
        finally:
            connection.close()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return connection, reader


@dataclass
class Table:
    gateway: ServedGateway
    host: TableHost
    log: InMemoryCommandLog
    table_id: str
    case: Case
    truth: Truth
    powers: Counter[tuple[str, str]] = field(default_factory=Counter)
    """Naiko powers the host accepted, by (power, transport)."""


@pytest.fixture(params=sorted(CASES))
async def table(request: pytest.FixtureRequest) -> AsyncIterator[Table]:
    case = CASES[request.param]
    game = case.game
    bus = InMemoryBus()
    await bus.start()
    log = InMemoryCommandLog()
    host = TableHost(
        engines=load_engines(),
        command_log=log,
        publisher=bus,
        seeds=Seeds(f"hidden-scan-{request.param}"),
    )
    await host.start()
    try:
        table_id = await host.open_table(game.name, json.loads(json.dumps(game.options)), HOUR)
        for seat, player in enumerate(game.players):
            await host.seat(table_id, player, seat, 1_000_000 if game.name == "poker" else 0)
        async with served_gateway(
            beside=[table_service(host)], clock=time.time, limits=UNLIMITED
        ) as gateway:
            yield Table(gateway, host, log, table_id, case, Truth(game))
    finally:
        await host.stop()
        await bus.stop()


async def disclosed_by_log(table: Table) -> dict[int, dict[str, frozenset[str]]]:
    """Poker: the cards each player may see at each version, from the host's own command
    log replayed by the poker engine (the cards themselves, no view): the board, the hands
    shown at a showdown, his own hole cards and his own powers' results. Every other card of
    the deck is hidden from him: the others' hole cards and power results, the undealt stub,
    a card a swap discarded, whatever the views, the public one included, show."""
    engine = load_engines()["poker"]
    (replayed,) = [r async for r in table.log.replay() if r.table_id == table.table_id]
    entries = applicable(replayed.entries)
    state = initial_state(engine, entries[0])
    disclosed: dict[int, dict[str, frozenset[str]]] = {}
    for entry in entries[1:]:
        state = step(engine, state, entry).state
        hand = state.engine_state.hand
        public: set[str] = set()
        own: dict[str, set[str]] = {}
        if hand is not None:
            public.update(poker_cards.names(hand.board))
            for cards in ((hand.result or {}).get("shown") or {}).values():
                public.update(cards)
            own = {
                p: set(poker_cards.names(cards))
                for p, cards in zip(hand.ids, hand.hole, strict=True)
            }
            for player, results in naiko.private(hand).items():
                own[player].update(results.values())
        disclosed[state.index] = {
            player: frozenset(public | own.get(player, set())) for player in table.case.game.players
        }
    return disclosed


async def _call(
    gateway: ServedGateway, web: bool, method: str, request: Any, player: str
) -> table_pb2.TableView:
    if not web:
        answer = await getattr(gateway.stub, method)(
            request, metadata=bearer(player, now=time.time())
        )
        view: table_pb2.TableView = answer.view
        return view
    messages, trailers = await grpc_web_call(
        gateway.http, method, request, "Bearer " + token(player, now=time.time())
    )
    assert trailers.get("grpc-status") == "0", trailers
    response = pb.ActResponse() if method == "Act" else pb.GetTableViewResponse()
    response.ParseFromString(messages[0])
    return response.view


def naiko_action(own_view: JSON, player: str, rng: random.Random) -> JSON:
    """A Naiko player who uses a Sleeve Swap whenever he may, another power on a third of the
    turns he can, answers an Anchor with a Seal or not, then checks or calls (folds
    rarely, so hands reach the flop and the turn, where peeks see the next street)."""
    hand = own_view["hand"]
    legal = hand["legal"]
    actions = legal["actions"]
    if "seal" in actions:
        return {"action": rng.choice(["seal", "no_seal"])}
    powers = legal.get("powers", [])
    # A swap has one chance a hand (preflop) and costs 2: the other powers are used less,
    # so Destellos are left for it.
    if "swap" in powers or ("power" in actions and rng.random() < 0.35):
        power = "swap" if "swap" in powers else rng.choice(powers)
        if power == "swap":
            mine = next(s for s in hand["seats"] if s["player"] == player)
            return {"action": "power", "power": "swap", "card": rng.choice(mine["hole_cards"])}
        if power == "anchor":
            target = rng.choice(legal["anchor_targets"])
            return {"action": "power", "power": "anchor", "target": target}
        return {"action": "power", "power": power}
    if "check" in actions:
        return {"action": "check"}
    return {"action": "fold" if rng.random() < 0.1 else "call"}


async def _play(table: Table, received: dict[str, Received]) -> int:
    """Play through the gateway until the end (poker: until the hand after the last is
    dealt); the actions played."""
    case, host, table_id = table.case, table.host, table.table_id
    game = case.game
    with_powers = game.options.get("variant") == "naiko"
    rng = random.Random(20)
    actions = 0
    while actions < case.max_actions:
        public = dict(host.view(table_id, "").view)
        hand = hand_key(public)
        if case.hands and hand > case.hands:
            break
        player = game.to_act(public)
        if player is None:
            break  # the game is over
        web = hand % 5 == 0
        how = "grpc-web" if web else "grpc"
        request = pb.GetTableViewRequest(table_id=table_id)
        seen = await _call(table.gateway, web, "GetTableView", request, player)
        own = json.loads(seen.view_json)
        chosen = naiko_action(own, player, rng) if with_powers else game.legal_action(own, rng)
        act = pb.ActRequest(
            table_id=table_id, command_id=f"a{actions}", action_json=json.dumps(chosen)
        )
        answer = await _call(table.gateway, web, "Act", act, player)  # refused: it raises
        if chosen["action"] in ("power", "seal"):
            table.powers[chosen.get("power", "seal"), how] += 1
        received[player].views += [(how, seen), (how, answer)]
        actions += 1
    return actions


async def test_no_message_to_a_player_holds_anothers_hidden_cards(table: Table) -> None:
    gateway, host, table_id, case = table.gateway, table.host, table.table_id, table.case
    game, truth = case.game, table.truth
    viewers = ["", *game.players]
    following = [asyncio.create_task(truth.follow(host, table_id, v)) for v in viewers]
    received = {player: Received(player) for player in game.players}
    streams = [asyncio.create_task(watch_grpc(gateway, table_id, r)) for r in received.values()]
    stop = threading.Event()
    url = f"{gateway.http}{SERVICE_PATH}/WatchTable"
    body = pb.WatchTableRequest(table_id=table_id).SerializeToString()
    connections = [
        await asyncio.to_thread(
            _read_grpc_web_stream,
            url,
            struct.pack(">BI", 0, len(body)) + body,
            "Bearer " + token(player, now=time.time()),
            received[player],
            stop,
        )
        for player in game.players
    ]
    try:
        # Every stream has its first view before play starts: none misses a version.
        start = host.view(table_id, "").version
        for _ in range(400):
            kinds = [{how for how, _ in r.views} for r in received.values()]
            if all(k == {"grpc stream", "grpc-web stream"} for k in kinds) and all(
                start in truth.seen.get(v, {}) for v in viewers
            ):
                break
            await asyncio.sleep(0.05)
        actions = await _play(table, received)
        final = host.view(table_id, "").version
        for _ in range(400):  # until every stream delivered the last version
            last = [
                max(view.version for how, view in r.views if how == kind)
                for r in received.values()
                for kind in ("grpc stream", "grpc-web stream")
            ]
            if min(last) >= final and all(final in truth.seen[v] for v in viewers):
                break
            await asyncio.sleep(0.05)
        assert min(last) >= final, "a stream fell behind"
    finally:
        stop.set()
        for connection, reader in connections:  # a browser closing its tab
            if connection.sock is not None:
                connection.sock.shutdown(socket.SHUT_RDWR)
            await asyncio.to_thread(reader.join)
        for task in [*streams, *following]:
            task.cancel()
        await asyncio.gather(*streams, *following, return_exceptions=True)

    poker = game.name == "poker"
    disclosed = await disclosed_by_log(table) if poker else {}
    scanned: Counter[str] = Counter()
    guarded = 0  # messages sent while another's cards were hidden: the scan is not vacuous
    guarded_private = 0  # ... while another's power result was hidden (Naiko)
    for player, got in received.items():
        for how, view in got.views:
            where = f"({how}, version {view.version})"
            # The gateway sent him the host's own view of him at that version...
            assert json.loads(view.view_json) == truth.seen[player][view.version], (
                f"{player} was sent a view other than the host's view of him {where}"
            )
            # ... and no card in any of its fields that he may not see.
            shown = set(CARD.findall(_sent(view))) & case.cards
            foreign = truth.foreign(player, view.version)
            leaked = shown & foreign
            assert not leaked, f"{player} was sent another's {sorted(leaked)} {where}"
            unexplained = shown - truth.allowed(player, view.version)
            assert not unexplained, (
                f"{player} was sent {sorted(unexplained)}, neither public nor his own {where}"
            )
            if poker:
                hidden = shown - disclosed[view.version][player]
                assert not hidden, f"{player} was sent {sorted(hidden)}, hidden by the log {where}"
            guarded += bool(foreign)
            guarded_private += bool(truth.foreign_private(player, view.version))
            scanned[how] += 1
    for player, got in received.items():  # each stream carried every view the host sent
        shown_versions = {v for v in truth.seen[player] if start <= v <= final}
        for kind in ("grpc stream", "grpc-web stream"):
            assert {view.version for how, view in got.views if how == kind} == shown_versions
    assert scanned["grpc"] > 0 and scanned["grpc-web"] > 0
    assert guarded > sum(scanned.values()) // 2
    finished = truth.finished - {0}
    powers: Counter[str] = Counter()
    for (power, _), n in table.powers.items():
        powers[power] += n
    print(
        f"{actions} actions, {len(finished)} hands finished, {sum(scanned.values())} messages "
        f"scanned ({dict(scanned)}), {guarded} guarded, {guarded_private} guarding another's "
        f"power result; powers {dict(table.powers)}"
    )
    if case.hands:  # poker: every hand of the run was played to its end
        assert set(range(1, case.hands + 1)) <= finished, sorted(
            set(range(1, case.hands + 1)) - finished
        )
    else:  # Joker: the game ended, not the cap
        assert actions < case.max_actions and truth.seen[""][final].get("over"), actions
        assert actions > 100
    if game.options.get("variant") == "naiko":
        for power, least in MIN_POWERS.items():
            assert powers[power] >= least, (power, dict(powers))
        assert {how for _, how in table.powers} == {"grpc", "grpc-web"}
        # Every accepted peek and swap is a private result the host showed its user only.
        results: dict[str, set[tuple[int, str, str]]] = {"peeked": set(), "swapped_in": set()}
        for player in game.players:
            for own in truth.seen[player].values():
                private = (own.get("hand") or {}).get("private") or {}
                for kind, card in private.items():
                    results[kind].add((hand_key(own), player, card))
        assert len(results["peeked"]) == powers["peek"], results
        assert len(results["swapped_in"]) == powers["swap"], results
        assert guarded_private >= MIN_GUARDED_PRIVATE, guarded_private
