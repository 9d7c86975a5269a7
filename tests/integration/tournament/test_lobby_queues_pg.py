"""Issue #19: the lobby's Sit & Go and Spin queues on the real director. The lobby (its own
PostgreSQL schema, served over gRPC) fills its built-in Spin queue on a director served
over gRPC (its own schema, the wallet service on PostgreSQL): three players queued start
a Spin there, the fourth fills a new one, leaving refunds, and refusals are clear."""

from __future__ import annotations

import random
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import asyncpg  # type: ignore[import-untyped]
import grpc

from croupier.common.v1 import common_pb2
from croupier.gateway.v1 import gateway_pb2 as gw
from croupier.kit.bus.kafka import KafkaBus
from croupier.lobby.adapters.director_grpc import GrpcDirector, load_templates
from croupier.lobby.adapters.host_local import LocalTableHost
from croupier.lobby.bootstrap import Wired, build_lobby, open_database
from croupier.lobby.entrypoints.table_events import TABLE_EVENTS_TOPIC
from croupier.lobby.entrypoints.tournament_events import TOURNAMENT_EVENTS_TOPIC
from croupier.lobby.v1 import lobby_pb2 as pb
from croupier.lobby.v1 import lobby_pb2_grpc
from croupier.table.service.host import TableHost
from croupier.tournament.service.model import Status
from croupier.tournament.v1 import tournament_pb2, tournament_pb2_grpc
from tests.integration.lobby.test_lobby_pg import refused, until
from tests.integration.tournament.platform import (
    DEPOSIT,
    Platform,
    hand_applied,
    kafka_tables,
    serve,
)
from tests.support.gateway import bearer, served_gateway
from tests.support.infra import start_group_at_end
from tests.support.table import status_of
from tests.unit.tournament.hosted import hosted_tables
from tests.unit.tournament.poker_hosted import play_hand

SPIN = "spin-nlhe-5"
(TEMPLATE,) = [t for t in load_templates() if t.queue_id == SPIN]
ENTRY = TEMPLATE.buy_in + TEMPLATE.fee
MAX_ROUNDS = 500
SECONDS_PER_HAND = 15
"""The director's clock moves on this much after each hand: the Spin's levels rise."""


@asynccontextmanager
async def lobby_built(
    platform: Platform,
    postgres_dsn: str,
    schema: str,
    host: TableHost,
    bus: KafkaBus | None = None,
    group: str = "lobby-queues",
) -> AsyncIterator[Wired]:
    """The lobby over `schema`, its queues filled on the platform's director; with a bus,
    following the table and tournament events as consumer `group`."""
    assert platform.host is not None
    director = GrpcDirector(f"127.0.0.1:{platform.host.port}")
    pool = await open_database(postgres_dsn, schema)
    wired = build_lobby(
        pool=pool,
        schema=schema,
        host=LocalTableHost(host),
        bus=bus,
        clock=platform.clock,
        tick_seconds=None,
        consumer_group=group,
        director=director,
        queues=load_templates(),
    )
    try:
        yield wired
    finally:
        await wired.stop()
        await director.close()
        await pool.close()
        connection = await asyncpg.connect(postgres_dsn)
        try:
            await connection.execute(f'DROP SCHEMA "{schema}" CASCADE')
        finally:
            await connection.close()


@asynccontextmanager
async def lobby_on(
    platform: Platform,
    postgres_dsn: str,
    schema: str,
    host: TableHost,
    bus: KafkaBus | None = None,
    group: str = "lobby-queues",
) -> AsyncIterator[lobby_pb2_grpc.LobbyStub]:
    """`lobby_built`'s lobby served on its own port."""
    async with lobby_built(platform, postgres_dsn, schema, host, bus, group) as wired:
        server = serve(wired.service())
        await server.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                yield lobby_pb2_grpc.LobbyStub(channel)
        finally:
            await server.stop()


async def test_a_spin_queue_of_three_starts_a_spin_on_the_director(
    platform: Platform, postgres_dsn: str, unique: Callable[[str], str]
) -> None:
    await platform.start_director()
    assert platform.wired is not None
    director = platform.wired.director
    async with (
        hosted_tables("lobby-queues") as hosted,
        lobby_on(platform, postgres_dsn, unique("lobby"), hosted.host) as lobby,
    ):
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


async def test_the_gateway_queues_the_tokens_player_only(
    platform: Platform, postgres_dsn: str, unique: Callable[[str], str]
) -> None:
    """Through the gateway (issue #20): ListQueues, JoinQueue and LeaveQueue act for the
    token's player, the only one the requests can name."""
    await platform.start_director()
    assert platform.wired is not None
    director = platform.wired.director
    async with (
        hosted_tables("gateway-queues") as hosted,
        lobby_built(platform, postgres_dsn, unique("lobby"), hosted.host) as wired,
        served_gateway(beside=[wired.service()], clock=time.time) as gateway,
    ):
        listed = await gateway.stub.ListQueues(gw.ListQueuesRequest(), metadata=_as("a"))
        assert SPIN in {q.queue_id for q in listed.queues}
        joined = await gateway.stub.JoinQueue(gw.JoinQueueRequest(queue_id=SPIN), metadata=_as("a"))
        assert (joined.waiting, joined.players) == (1, 3)
        assert (await director.get(joined.tournament_id)).players() == ("a",)
        assert await platform.balance("a") == DEPOSIT - ENTRY
        # b cannot take a out: leaving is b's own, and b is in no tournament of the queue.
        code, _ = await status_of(
            gateway.stub.LeaveQueue(gw.LeaveQueueRequest(queue_id=SPIN), metadata=_as("b"))
        )
        assert code is grpc.StatusCode.NOT_FOUND
        assert (await director.get(joined.tournament_id)).players() == ("a",)
        await gateway.stub.LeaveQueue(gw.LeaveQueueRequest(queue_id=SPIN), metadata=_as("a"))
        assert (await director.get(joined.tournament_id)).players() == ()
        assert await platform.balance("a") == DEPOSIT
        code, _ = await status_of(
            gateway.stub.JoinQueue(gw.JoinQueueRequest(queue_id=""), metadata=_as("a"))
        )
        assert code is grpc.StatusCode.INVALID_ARGUMENT


def _as(player: str) -> tuple[tuple[str, str]]:
    return bearer(player, now=time.time())


async def test_a_finished_spin_rates_its_players_at_poker_by_their_places(
    platform: Platform, postgres_dsn: str, kafka_bootstrap: str, unique: Callable[[str], str]
) -> None:
    """The lobby follows `croupier.tournament.events` on the broker: the director's
    `tournament.finished` rates the entrants by the final places it reports (openskill)."""
    group = unique("lobby")
    for topic, follower in (
        (TABLE_EVENTS_TOPIC, group),
        (TOURNAMENT_EVENTS_TOPIC, f"{group}-tournaments"),
    ):
        await start_group_at_end(kafka_bootstrap, topic, follower)
    director_bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    lobby_bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    async with kafka_tables(kafka_bootstrap, "lobby-ratings") as hosted:
        platform.tables = hosted.tables
        results = unique("director")
        await start_group_at_end(kafka_bootstrap, TABLE_EVENTS_TOPIC, results)
        await platform.start_director(director_bus, results)
        assert platform.wired is not None
        director = platform.wired.director
        try:
            async with lobby_on(
                platform, postgres_dsn, unique("lobby"), hosted.host, lobby_bus, group
            ) as lobby:
                for player in "abc":
                    joined = await lobby.JoinQueue(
                        pb.JoinQueueRequest(player_id=player, queue_id=SPIN)
                    )
                tid = joined.tournament_id
                rng = random.Random(tid)
                for _ in range(MAX_ROUNDS):
                    record = await director.get(tid)
                    if record.status is not Status.RUNNING:
                        break
                    for hand in record.hands:
                        if hand.table_id:
                            await play_hand(hosted, hand.table_id, rng)
                            await hand_applied(director, tid, hand.table_id)
                    platform.clock.advance(SECONDS_PER_HAND)
                    await director.rounds.advance_running()
                record = await director.get(tid)
                assert record.status is Status.FINISHED

                async def rating(player: str) -> pb.GetRatingResponse:
                    request = pb.GetRatingRequest(player_id=player, game=common_pb2.GAME_POKER)
                    return await lobby.GetRating(request)

                async def rated() -> bool:
                    return [(await rating(p)).experience for p in "abc"] == [1, 1, 1]

                await until(rated, 60)
                assert platform.channel is not None
                standings = await tournament_pb2_grpc.TournamentDirectorStub(
                    platform.channel
                ).GetStandings(tournament_pb2.GetStandingsRequest(tournament_id=tid))
                places = {s.player_id: s.rank for s in standings.standings}
                winner = min(places, key=places.__getitem__)
                others = [p for p in "abc" if p != winner]
                best = (await rating(winner)).rating
                assert all(best > r for r in [(await rating(p)).rating for p in others])
                assert (await rating("d")).experience == 0  # not in it: unrated
        finally:
            await platform.stop_director()
            platform.host = None
    await director_bus.stop()
    await lobby_bus.stop()
