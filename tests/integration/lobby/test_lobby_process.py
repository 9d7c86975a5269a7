"""`croupier serve lobby` killed (SIGKILL) with an open game and a queued ticket: a new
process over the same database lists the game and matches the ticket on its ticker,
nobody is seated twice; SIGTERM drains and exits 0. Killed on the real Kafka broker while
the host is seating a matched player: the new process finishes that seat, once, and the
ticket still waiting for another stake keeps waiting."""

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
from croupier.kit.bus.interface import EventBus
from croupier.kit.bus.kafka import KafkaBus
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
async def table_host(
    bus: EventBus | None = None, stall_seating_of: str = ""
) -> AsyncIterator[tuple[Any, str]]:
    """A table host served over gRPC in this process (publishing on `bus`, in memory
    without one): its stub and address. The first `SeatPlayer` of `stall_seating_of`
    never answers (the lobby asking dies waiting)."""
    bus = bus or InMemoryBus()
    await bus.start()
    host = TableHost(command_log=InMemoryCommandLog(), publisher=bus, engines=load_engines())
    if stall_seating_of:
        seat = host.seat
        stalled: list[str] = []

        async def stall_first(table_id: str, player: str, *args: Any, **kwargs: Any) -> Any:
            if player == stall_seating_of and not stalled:
                stalled.append(table_id)
                await asyncio.Event().wait()
            return await seat(table_id, player, *args, **kwargs)

        host.seat = stall_first  # type: ignore[method-assign]
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


async def served_lobby(env: dict[str, str]) -> tuple[asyncio.subprocess.Process, int]:
    """`croupier serve lobby` started with `env`; the process and its gRPC port."""
    process = await asyncio.create_subprocess_exec(
        str(CROUPIER),
        "serve",
        "lobby",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    return process, await serving_port(process, "the lobby")


async def stop_and_drop(process: asyncio.subprocess.Process, dsn: str, schema: str) -> None:
    """SIGTERM the served lobby (it must exit 0), then drop its schema."""
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(30):
            assert await process.wait() == 0
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await connection.close()


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

        process, port = await served_lobby(env)
        try:
            async with service_stub(f"127.0.0.1:{port}", lobby_pb2_grpc.LobbyStub) as lobby:
                # At a stake out of cid's range: he waits for a match, not for ann's seat.
                opened = await lobby.OpenTable(
                    pb.OpenTableRequest(player_id="ann", request_key="g", options=backgammon(300))
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

            process, port = await served_lobby(env)
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
            await stop_and_drop(process, postgres_dsn, schema)


def find(player: str, low: int, high: int) -> pb.FindGameRequest:
    return pb.FindGameRequest(
        player_id=player, request_key="q", options=backgammon(), min_stake=low, max_stake=high
    )


async def test_a_lobby_killed_while_the_host_seats_a_match_finishes_that_seat_once(
    postgres_dsn: str, kafka_bootstrap: str, unique: Callable[[str], str]
) -> None:
    schema = unique("lobby")
    bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    async with table_host(bus, stall_seating_of="eve") as (host, address):
        env = dict(
            os.environ,
            CROUPIER_GRPC_HOST="127.0.0.1",
            CROUPIER_GRPC_PORT="0",
            CROUPIER_METRICS_PORT="0",
            CROUPIER_POSTGRES_DSN=postgres_dsn,
            CROUPIER_LOBBY_SCHEMA=schema,
            CROUPIER_LOBBY_BUS="kafka",
            CROUPIER_KAFKA_BOOTSTRAP=kafka_bootstrap,
            CROUPIER_TABLE_ADDRESS=address,
            CROUPIER_LOBBY_TICK_SECONDS="0.1",
        )
        process, port = await served_lobby(env)
        try:
            async with service_stub(f"127.0.0.1:{port}", lobby_pb2_grpc.LobbyStub) as lobby:
                # ann's open game is at a stake none of the tickets takes: eve and fay are
                # matched with each other (a ticket in range would sit at ann's table).
                opened = await lobby.OpenTable(
                    pb.OpenTableRequest(player_id="ann", request_key="g", options=backgammon(300))
                )
                gus = (await lobby.FindGame(find("gus", 5_000, 5_000))).ticket
                eve = (await lobby.FindGame(find("eve", 100, 200))).ticket
                fay = (await lobby.FindGame(find("fay", 150, 150))).ticket
                eve_ticket = pb.GetTicketRequest(player_id="eve", ticket_id=eve.ticket_id)
                for _ in range(300):  # the ticker matched them and the host is seating eve
                    if (
                        await lobby.GetTicket(eve_ticket)
                    ).ticket.status == pb.TICKET_STATUS_MATCHED:
                        break
                    await asyncio.sleep(0.05)
                await asyncio.sleep(0.5)  # the hold is saved before the host is asked
            process.kill()
            assert await process.wait() == -signal.SIGKILL

            process, port = await served_lobby(env)
            async with service_stub(f"127.0.0.1:{port}", lobby_pb2_grpc.LobbyStub) as lobby:
                seated = await placed(lobby, eve_ticket)
                fay_ticket = pb.GetTicketRequest(player_id="fay", ticket_id=fay.ticket_id)
                other = await placed(lobby, fay_ticket)
                assert seated.status == other.status == pb.TICKET_STATUS_SEATED
                assert seated.table_id == other.table_id
                assert sorted([seated.seat, other.seat]) == [0, 1]
                view = await host.GetView(
                    table_pb2.GetViewRequest(table_id=seated.table_id, player_id="eve")
                )
                assert sorted(view.view.seated) == ["eve", "fay"]
                gus_ticket = pb.GetTicketRequest(player_id="gus", ticket_id=gus.ticket_id)
                assert (await lobby.GetTicket(gus_ticket)).ticket.status == (
                    pb.TICKET_STATUS_WAITING
                )
                listed = await lobby.ListTables(pb.ListTablesRequest())
                assert [(t.table_id, list(t.seated), t.seats_taken) for t in listed.tables] == [
                    (opened.table.table_id, ["ann"], 1),
                    (
                        seated.table_id,
                        [v for _, v in sorted([(seated.seat, "eve"), (other.seat, "fay")])],
                        2,
                    ),
                ]
                for player, table_id in (("eve", seated.table_id), ("ann", opened.table.table_id)):
                    try:
                        await lobby.JoinTable(
                            pb.JoinTableRequest(player_id=player, table_id=table_id)
                        )
                    except grpc.aio.AioRpcError as error:
                        assert error.code() == grpc.StatusCode.ALREADY_EXISTS
                    else:
                        raise AssertionError(f"{player} was seated twice")
        finally:
            await stop_and_drop(process, postgres_dsn, schema)
