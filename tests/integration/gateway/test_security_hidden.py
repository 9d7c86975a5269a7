"""No hidden information leaves the gateway. Players play through the gateway with their own
tokens (200 hands of poker, a game of Joker to its end), every call over gRPC and, every
fifth hand, over gRPC-Web, while each player also watches the table on a view stream over
gRPC and another over gRPC-Web. Every message each one receives, answers and stream
messages alike, is scanned: it never holds a card of another player's hand that the public
view of the same version does not show (a showdown, a card played to a trick). What is
hidden at each version is read from the host itself, on streams of its own."""

from __future__ import annotations

import asyncio
import http.client
import json
import random
import socket
import struct
import threading
import time
import urllib.parse
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
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.bootstrap import table_service
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
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

HANDS = 200  # poker
MAX_ACTIONS = 2_000  # Joker: its game ends well before
HOUR = ClockSettings(turn_ms=3_600_000, reconnect_ms=3_600_000)
# Bots call as fast as the gateway answers: no limit should hold them back here.
UNLIMITED = GatewayLimits(
    per_player=RateLimit(rate=100_000, burst=100_000),
    per_address=RateLimit(rate=100_000, burst=100_000),
)


@dataclass
class Truth:
    """What the host showed each viewer ("" the public) at each version, on its own streams."""

    seen: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    _hidden: dict[tuple[str, int], set[str]] = field(default_factory=dict)

    async def follow(self, host: TableHost, table_id: str, viewer: str) -> None:
        versions = self.seen.setdefault(viewer, {})
        async for snapshot in host.watch(table_id, viewer):
            versions[snapshot.version] = json.loads(json.dumps(snapshot.view))

    def hidden_from(self, game: GameAtTable, player: str, version: int) -> set[str]:
        """The other players' cards the public view of `version` does not show."""
        key = (player, version)
        if key not in self._hidden:
            assert version in self.seen[""], f"the host never showed version {version}"
            others = [p for p in game.players if p != player]
            cards = set().union(*(game.secrets(p, self.seen[p][version]) for p in others))
            self._hidden[key] = cards - strings_in(self.seen[""][version])
        return self._hidden[key]


def _sent(view: pb.TableView) -> str:
    """Everything a view says, as JSON: its `view_json` and its protobuf game view (a card
    is a JSON string wherever it appears)."""
    return view.view_json + json_format.MessageToJson(view.game, indent=None)


@dataclass
class Received:
    """Every view one player received from the gateway, with how it came."""

    player: str
    views: list[tuple[str, pb.TableView]] = field(default_factory=list)


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
    table_id: str
    game: GameAtTable
    truth: Truth


@pytest.fixture(params=["poker", "joker"])
async def table(request: pytest.FixtureRequest) -> AsyncIterator[Table]:
    game = GAMES[request.param]
    bus = InMemoryBus()
    await bus.start()
    host = TableHost(
        engines=load_engines(),
        command_log=InMemoryCommandLog(),
        publisher=bus,
        seeds=Seeds(f"hidden-scan-{game.name}"),
    )
    await host.start()
    try:
        table_id = await host.open_table(game.name, json.loads(json.dumps(game.options)), HOUR)
        for seat, player in enumerate(game.players):
            await host.seat(table_id, player, seat, 1_000_000 if game.name == "poker" else 0)
        async with served_gateway(
            beside=[table_service(host)], clock=time.time, limits=UNLIMITED
        ) as gateway:
            yield Table(gateway, host, table_id, game, Truth())
    finally:
        await host.stop()
        await bus.stop()


async def _call(
    gateway: ServedGateway, web: bool, method: str, request: Any, player: str
) -> pb.TableView:
    if not web:
        answer = await getattr(gateway.stub, method)(
            request, metadata=bearer(player, now=time.time())
        )
        return answer.view  # type: ignore[no-any-return]
    messages, trailers = await grpc_web_call(
        gateway.http, method, request, "Bearer " + token(player, now=time.time())
    )
    assert trailers.get("grpc-status") == "0", trailers
    response = pb.ActResponse() if method == "Act" else pb.GetTableViewResponse()
    response.ParseFromString(messages[0])
    return response.view


async def _play(table: Table, received: dict[str, Received]) -> int:
    """Play through the gateway until the end; the actions played."""
    game, host, table_id = table.game, table.host, table.table_id
    rng = random.Random(20)
    actions = 0
    while actions < MAX_ACTIONS:
        public = dict(host.view(table_id, "").view)
        hand = public.get("hand_number") or (public.get("hand") or {}).get("number", 0)
        if game.name == "poker" and public["hand_number"] > HANDS:
            break
        player = game.to_act(public)
        if player is None:
            break  # the game is over
        web = hand % 5 == 0
        request = pb.GetTableViewRequest(table_id=table_id)
        seen = await _call(table.gateway, web, "GetTableView", request, player)
        action = json.dumps(game.legal_action(json.loads(seen.view_json), rng))
        act = pb.ActRequest(table_id=table_id, command_id=f"a{actions}", action_json=action)
        answer = await _call(table.gateway, web, "Act", act, player)
        how = "grpc-web" if web else "grpc"
        received[player].views += [(how, seen), (how, answer)]
        actions += 1
    return actions


async def test_no_message_to_a_player_holds_anothers_hidden_cards(table: Table) -> None:
    gateway, host, table_id, game = table.gateway, table.host, table.table_id, table.game
    truth = table.truth
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

    scanned: dict[str, int] = {}
    guarded = 0  # messages sent while another's cards were hidden: the scan is not vacuous
    for player, got in received.items():
        for how, view in got.views:
            sent = _sent(view)
            hidden = truth.hidden_from(game, player, view.version)
            leaked = {card for card in hidden if f'"{card}"' in sent}
            guarded += bool(hidden)
            assert not leaked, f"{player} was sent {leaked} ({how}, version {view.version})"
            scanned[how] = scanned.get(how, 0) + 1
    for player, got in received.items():  # each stream carried every view the host sent
        shown = {version for version in truth.seen[player] if start <= version <= final}
        for kind in ("grpc stream", "grpc-web stream"):
            assert {view.version for how, view in got.views if how == kind} == shown, kind
    assert scanned["grpc"] > 0 and scanned["grpc-web"] > 0
    assert guarded > sum(scanned.values()) // 2
    assert actions > (2 * HANDS if game.name == "poker" else 100)
