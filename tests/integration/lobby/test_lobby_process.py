"""`croupier serve lobby` killed (SIGKILL) with an open game and a queued ticket: a new
process over the same database lists the game and matches the ticket on its ticker,
nobody is seated twice; SIGTERM drains and exits 0."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import grpc

from croupier.backgammon.v1 import backgammon_pb2
from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.lobby.v1 import lobby_pb2 as pb
from croupier.lobby.v1 import lobby_pb2_grpc
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.bootstrap import table_service
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.v1 import table_pb2, table_pb2_grpc
from tests.support.cli import serving_port
from tests.support.services import service_stub

CROUPIER = Path(sys.executable).parent / "croupier"


def backgammon(stake: int = 0) -> table_pb2.GameOptions:
    return table_pb2.GameOptions(
        backgammon=backgammon_pb2.Options(mode=backgammon_pb2.MODE_SINGLE, stake=stake)
    )


@asynccontextmanager
async def table_host() -> AsyncIterator[tuple[Any, str]]:
    """A table host served over gRPC in this process: its stub and address."""
    bus = InMemoryBus()
    await bus.start()
    host = TableHost(command_log=InMemoryCommandLog(), publisher=bus, engines=load_engines())
    await host.start()
    server = ServiceHost(
        settings=ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0),
        services=[table_service(host)],
        on_stop=[host.stop, bus.stop],
        serve_metrics_endpoint=False,
    )
    await server.start()
    address = f"127.0.0.1:{server.port}"
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            yield table_pb2_grpc.TableEngineStub(channel), address
    finally:
        await server.stop()


async def placed(lobby: Any, request: pb.GetTicketRequest) -> pb.Ticket:
    """The ticket once the served lobby's ticker has matched and placed it."""
    for _ in range(300):
        found: pb.Ticket = (await lobby.GetTicket(request)).ticket
        if found.status not in (pb.TICKET_STATUS_WAITING, pb.TICKET_STATUS_MATCHED):
            return found
        await asyncio.sleep(0.1)
    raise AssertionError("the ticket was never placed")


async def test_a_killed_lobby_loses_no_open_game_or_ticket_and_seats_nobody_twice(
    postgres_dsn: str, unique: Callable[[str], str]
) -> None:
    schema = unique("lobby")
    async with table_host() as (host, address):
        env = dict(
            os.environ,
            CROUPIER_GRPC_HOST="127.0.0.1",
            CROUPIER_GRPC_PORT="0",
            CROUPIER_METRICS_PORT="0",
            CROUPIER_POSTGRES_DSN=postgres_dsn,
            CROUPIER_LOBBY_SCHEMA=schema,
            CROUPIER_LOBBY_BUS="memory",
            CROUPIER_TABLE_ADDRESS=address,
            CROUPIER_LOBBY_TICK_SECONDS="0.1",
        )

        async def serve() -> tuple[asyncio.subprocess.Process, int]:
            process = await asyncio.create_subprocess_exec(
                str(CROUPIER),
                "serve",
                "lobby",
                env=env,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            return process, await serving_port(process, "the lobby")

        process, port = await serve()
        try:
            async with service_stub(f"127.0.0.1:{port}", lobby_pb2_grpc.LobbyStub) as lobby:
                opened = await lobby.OpenTable(
                    pb.OpenTableRequest(player_id="ann", request_key="g", options=backgammon(100))
                )
                queued = await lobby.FindGame(
                    pb.FindGameRequest(
                        player_id="cid",
                        request_key="q",
                        options=backgammon(),
                        min_stake=100,
                        max_stake=200,
                    )
                )
            process.kill()
            assert await process.wait() == -signal.SIGKILL

            process, port = await serve()
            async with service_stub(f"127.0.0.1:{port}", lobby_pb2_grpc.LobbyStub) as lobby:
                listed = await lobby.ListTables(pb.ListTablesRequest())
                assert [(t.table_id, list(t.seated)) for t in listed.tables] == [
                    (opened.table.table_id, ["ann"])
                ]
                ticket = pb.GetTicketRequest(player_id="cid", ticket_id=queued.ticket.ticket_id)
                assert (await lobby.GetTicket(ticket)).ticket.status == pb.TICKET_STATUS_WAITING
                dan = await lobby.FindGame(
                    pb.FindGameRequest(
                        player_id="dan",
                        request_key="q",
                        options=backgammon(),
                        min_stake=150,
                        max_stake=150,
                    )
                )
                found = await placed(lobby, ticket)
                # Both placed: the match seats its players one after the other.
                other = pb.GetTicketRequest(player_id="dan", ticket_id=dan.ticket.ticket_id)
                assert (await placed(lobby, other)).table_id == found.table_id
                assert found.status == pb.TICKET_STATUS_SEATED and found.stake.amount_minor == 150
                view = await host.GetView(
                    table_pb2.GetViewRequest(table_id=found.table_id, player_id="cid")
                )
                assert sorted(view.view.seated) == ["cid", "dan"]
                try:
                    await lobby.JoinTable(
                        pb.JoinTableRequest(player_id="ann", table_id=opened.table.table_id)
                    )
                except grpc.aio.AioRpcError as error:
                    assert error.code() == grpc.StatusCode.ALREADY_EXISTS
                else:
                    raise AssertionError("ann was seated twice")
        finally:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
                async with asyncio.timeout(30):
                    assert await process.wait() == 0
            connection = await asyncpg.connect(postgres_dsn)
            try:
                await connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            finally:
                await connection.close()
