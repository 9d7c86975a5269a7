"""The gateway's table calls find the table's service among several (the services' table
client, croupier.table.client, as `GrpcTables` uses it): one table-engine service per
game, each in process on an in-memory log; a service that is down is passed over;
`NOT_FOUND` from another game's service is not the answer, from every service it is
(while one does not answer, the table may be its: UNAVAILABLE); the serving service's
refusal is passed on."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import pytest

from croupier.game import ClockSettings, RuleBroken, Unknown
from croupier.gateway.adapters.tables import GrpcTables
from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.errors import Unavailable
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.bootstrap import table_service
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.v1 import table_pb2
from tests.support.games import GAMES

HOUR = ClockSettings(turn_ms=3_600_000)
JSON_VIEW = table_pb2.VIEW_FORMAT_JSON


@asynccontextmanager
async def game_service(game: str) -> AsyncIterator[tuple[str, TableHost]]:
    """A table host serving only `game`, on a free port (unguarded: a unit test's)."""
    bus = InMemoryBus()
    await bus.start()
    host = TableHost(engines=load_engines([game]), command_log=InMemoryCommandLog(), publisher=bus)
    await host.start()
    server = ServiceHost(
        settings=ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0),
        services=[table_service(host)],
        on_stop=[host.stop, bus.stop],
        serve_metrics_endpoint=False,
    )
    await server.start()
    try:
        yield f"127.0.0.1:{server.port}", host
    finally:
        await server.stop()


def nobody_listening() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


async def test_a_call_finds_its_games_service_and_a_refusal_comes_from_it() -> None:
    joker = GAMES["joker"]
    async with AsyncExitStack() as stack:
        poker_address, _ = await stack.enter_async_context(game_service("poker"))
        joker_address, joker_host = await stack.enter_async_context(game_service("joker"))
        table_id = await joker_host.open_table("joker", dict(joker.options), HOUR)
        for seat, player in enumerate(joker.players):
            await joker_host.seat(table_id, player, seat, 0)
        per_game = f"poker={poker_address},joker={joker_address}"
        tables = GrpcTables(f"rummy={nobody_listening()},{per_game}", call_retry_seconds=0.5)
        stack.push_async_callback(tables.close)

        view = await tables.view(table_id, joker.players[0], JSON_VIEW)
        assert view.table_id == table_id and list(view.seated) == list(joker.players)
        # Acting out of turn: the joker service's refusal, not another service's NOT_FOUND.
        to_act = json.loads(view.view_json)["hand"]["to_act"]
        waiting = next(p for p in joker.players if p != to_act)
        action = table_pb2.ActRequest(action_json=json.dumps({"action": "bid", "tricks": 0}))
        with pytest.raises(RuleBroken) as refused:
            await tables.act(table_id, waiting, "c1", action)
        assert not isinstance(refused.value, Unknown)
        # A table no service knows: UNAVAILABLE while a service that may hold it does not
        # answer (after the retry window), NOT_FOUND once every service said so.
        with pytest.raises(Unavailable):
            await tables.view("no-such-table", "", JSON_VIEW)
        answering = GrpcTables(per_game)
        stack.push_async_callback(answering.close)
        with pytest.raises(Unknown):
            await answering.view("no-such-table", "", JSON_VIEW)
