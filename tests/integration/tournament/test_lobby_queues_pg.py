"""Issue #19: the lobby's Sit & Go and Spin queues on the real director. The lobby (its own
PostgreSQL schema, served over gRPC) fills its built-in Spin queue on a director served
over gRPC (its own schema, the wallet service on PostgreSQL): three players queued start
a Spin there, the fourth fills a new one, leaving refunds, and refusals are clear."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import asyncpg  # type: ignore[import-untyped]
import grpc

from croupier.lobby.adapters.director_grpc import GrpcDirector, load_templates
from croupier.lobby.adapters.host_local import LocalTableHost
from croupier.lobby.bootstrap import build_lobby, open_database
from croupier.lobby.v1 import lobby_pb2 as pb
from croupier.lobby.v1 import lobby_pb2_grpc
from croupier.tournament.service.model import Status
from croupier.tournament.v1 import tournament_pb2, tournament_pb2_grpc
from tests.integration.lobby.test_lobby_pg import refused
from tests.integration.tournament.platform import DEPOSIT, Platform, serve
from tests.unit.tournament.hosted import hosted_tables

SPIN = "spin-nlhe-5"
(TEMPLATE,) = [t for t in load_templates() if t.queue_id == SPIN]
ENTRY = TEMPLATE.buy_in + TEMPLATE.fee


@asynccontextmanager
async def lobby_on(
    platform: Platform, postgres_dsn: str, schema: str
) -> AsyncIterator[lobby_pb2_grpc.LobbyStub]:
    """The lobby over `schema`, its queues filled on the platform's director."""
    assert platform.host is not None
    director = GrpcDirector(f"127.0.0.1:{platform.host.port}")
    pool = await open_database(postgres_dsn, schema)
    async with hosted_tables("lobby-queues") as hosted:
        wired = build_lobby(
            pool=pool,
            schema=schema,
            host=LocalTableHost(hosted.host),
            bus=None,
            clock=platform.clock,
            tick_seconds=None,
            director=director,
            queues=load_templates(),
        )
        server = serve(wired.service())
        await server.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                yield lobby_pb2_grpc.LobbyStub(channel)
        finally:
            await server.stop()
            await wired.stop()
            await director.close()
            await pool.close()
            connection = await asyncpg.connect(postgres_dsn)
            try:
                await connection.execute(f'DROP SCHEMA "{schema}" CASCADE')
            finally:
                await connection.close()


async def test_a_spin_queue_of_three_starts_a_spin_on_the_director(
    platform: Platform, postgres_dsn: str, unique: Callable[[str], str]
) -> None:
    await platform.start_director()
    assert platform.wired is not None
    director = platform.wired.director
    async with lobby_on(platform, postgres_dsn, unique("lobby")) as lobby:
        listed = await lobby.ListQueues(pb.ListQueuesRequest(player_id="a"))
        queue = next(q for q in listed.queues if q.queue_id == SPIN)
        assert (queue.kind, queue.players, queue.waiting, queue.tournament_id) == ("spin", 3, 0, "")

        first = await lobby.JoinQueue(pb.JoinQueueRequest(player_id="a", queue_id=SPIN))
        assert (first.waiting, first.players) == (1, 3)
        assert await refused(
            lobby.JoinQueue(pb.JoinQueueRequest(player_id="a", queue_id=SPIN))
        ) == ("ALREADY_EXISTS", "already_registered")
        await lobby.JoinQueue(pb.JoinQueueRequest(player_id="b", queue_id=SPIN))
        # b leaves before the start: refunded in full, and c takes his place.
        await lobby.LeaveQueue(pb.LeaveQueueRequest(player_id="b", queue_id=SPIN))
        assert await platform.balance("b") == DEPOSIT
        await lobby.JoinQueue(pb.JoinQueueRequest(player_id="c", queue_id=SPIN))
        third = await lobby.JoinQueue(pb.JoinQueueRequest(player_id="d", queue_id=SPIN))
        assert third.tournament_id == first.tournament_id and third.waiting == 3

        record = await director.get(first.tournament_id)
        assert record.status is Status.RUNNING  # the Spin started with its third entry
        assert set(record.players()) == {"a", "c", "d"}
        assert platform.channel is not None
        view = await tournament_pb2_grpc.TournamentDirectorStub(platform.channel).GetLobbyView(
            tournament_pb2.GetLobbyViewRequest(tournament_id=first.tournament_id)
        )
        assert view.spin_multiplier > 0  # drawn at the start, shown to the players
        for player in "acd":
            assert await platform.balance(player) == DEPOSIT - ENTRY

        # The queue moved on: the next player fills a new Spin.
        fourth = await lobby.JoinQueue(pb.JoinQueueRequest(player_id="e", queue_id=SPIN))
        assert fourth.tournament_id != first.tournament_id and fourth.waiting == 1
        listed = await lobby.ListQueues(pb.ListQueuesRequest(player_id="a"))
        queue = next(q for q in listed.queues if q.queue_id == SPIN)
        assert (queue.tournament_id, queue.waiting) == (fourth.tournament_id, 1)

        assert await refused(
            lobby.JoinQueue(pb.JoinQueueRequest(player_id="f", queue_id="no-such-queue"))
        ) == ("NOT_FOUND", "unknown_queue")
        assert await refused(
            lobby.JoinQueue(pb.JoinQueueRequest(player_id="f", queue_id="bad queue!"))
        ) == ("INVALID_ARGUMENT", "invalid_queue_id")
        assert await platform.balance("f") == DEPOSIT  # nothing taken by a refusal
