"""The lobby over real gRPC, in process, on the real PostgreSQL (its own schema) and the
real Kafka broker, driving a table host served over gRPC on that broker: matchmaking opens
a table on the host and seats the matched players; a private Joker table refuses a player
without the invitation; bad input answers its status and reserves nothing; the listing
follows the host's events on `croupier.table.events`; the lobby's own events reach
`croupier.lobby.events`; a restart over the same database keeps open games and queued
tickets; results on `croupier.table.events` move the ratings once, and the next tickets
do not pair the same accounts again."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import grpc
import pytest

from croupier.backgammon.v1 import backgammon_pb2
from croupier.common.v1 import common_pb2
from croupier.events.v1.envelope_pb2 import Envelope
from croupier.game.events import Event
from croupier.joker.v1 import joker_pb2
from croupier.kit.bus.kafka import KafkaBus
from croupier.kit.errors import REASON_HEADER
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.lobby.adapters.host_grpc import GrpcTableHost
from croupier.lobby.bootstrap import Wired, build_lobby, open_database
from croupier.lobby.codec import EVENTS_TOPIC
from croupier.lobby.core.matchmaker import MatchmakerSettings
from croupier.lobby.entrypoints.table_events import TABLE_EVENTS_TOPIC
from croupier.lobby.v1 import lobby_pb2 as pb
from croupier.lobby.v1 import lobby_pb2_grpc
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.adapters.sink import public_events
from croupier.table.bootstrap import table_service
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.v1 import table_pb2, table_pb2_grpc
from tests.support.infra import closed_within, start_group_at_end

START = datetime(2026, 3, 1, 12, tzinfo=UTC)


def backgammon(stake: int = 0) -> table_pb2.GameOptions:
    return table_pb2.GameOptions(
        backgammon=backgammon_pb2.Options(mode=backgammon_pb2.MODE_SINGLE, stake=stake)
    )


class SteppedClock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


POOL_CLOSE_SECONDS = 30.0


@dataclass
class Platform:
    """A table host on Kafka served over gRPC, and lobby instances on one database."""

    host: Any
    host_address: str
    pool: asyncpg.Pool
    schema: str
    kafka_bootstrap: str
    clock: SteppedClock
    consumer_group: str
    wired: Wired | None = None
    server: ServiceHost | None = None
    channel: grpc.aio.Channel | None = None
    host_client: GrpcTableHost | None = None
    bus: KafkaBus | None = None

    async def start_lobby(self) -> Any:
        """A fresh lobby instance on the same database (what a restarted process does); its
        stub (typed Any: the generated aio stub is typed as the sync one)."""
        self.host_client = GrpcTableHost(self.host_address)
        self.bus = KafkaBus(bootstrap_servers=self.kafka_bootstrap)
        self.wired = build_lobby(
            pool=self.pool,
            schema=self.schema,
            host=self.host_client,
            bus=self.bus,
            clock=self.clock,
            matchmaker=MatchmakerSettings(widen_after=timedelta(seconds=10)),
            tick_seconds=None,
            consumer_group=self.consumer_group,
        )
        settings = ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0)
        self.server = ServiceHost(
            settings=settings, services=[self.wired.service()], serve_metrics_endpoint=False
        )
        await self.server.start()
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{self.server.port}")
        return lobby_pb2_grpc.LobbyStub(self.channel)

    async def stop_lobby(self) -> None:
        assert self.wired and self.server and self.channel and self.host_client and self.bus
        await self.channel.close()
        await self.server.stop()
        await self.wired.stop()
        await self.host_client.close()
        await self.bus.stop()

    async def rows(self) -> tuple[int, int, int]:
        """Tables, tickets and seat holds stored."""
        schema = f'"{self.schema}"'
        tables = await self.pool.fetchval(f"SELECT count(*) FROM {schema}.lobby_tables")
        tickets = await self.pool.fetchval(f"SELECT count(*) FROM {schema}.lobby_tickets")
        holds = await self.pool.fetchval(
            f"SELECT coalesce(sum(jsonb_array_length(state->'holds')), 0)"
            f" FROM {schema}.lobby_tables"
        )
        return tables, tickets, holds


@pytest.fixture
async def platform(
    postgres_dsn: str, kafka_bootstrap: str, unique: Callable[[str], str]
) -> AsyncIterator[Platform]:
    schema = unique("lobby")
    pool = await open_database(postgres_dsn, schema)
    bus = KafkaBus(bootstrap_servers=kafka_bootstrap)
    await bus.start()
    # The table host publishes its events on the broker (its command log stays in memory:
    # the lobby reads only the events).
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
    group = unique("lobby")
    await start_group_at_end(kafka_bootstrap, TABLE_EVENTS_TOPIC, group)
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = table_pb2_grpc.TableEngineStub(channel)
            platform = Platform(stub, address, pool, schema, kafka_bootstrap, SteppedClock(), group)
            try:
                yield platform
            finally:
                if platform.wired is not None:
                    await platform.stop_lobby()
    finally:
        await server.stop()
        await pool.execute(f'DROP SCHEMA "{schema}" CASCADE')
        if not await closed_within(pool, POOL_CLOSE_SECONDS):
            # Seen in CI after a lobby restart: a connection never given back hung close()
            # for ever. One way it happened is fixed (an outbox relay whose start failed or
            # was cancelled kept its listening connection); any other is said.
            warnings.warn("a lobby left a PostgreSQL connection checked out", stacklevel=1)


async def refused(call: Awaitable[Any]) -> tuple[str, str]:
    """The status and reason of a refused call."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    trailers = dict(caught.value.trailing_metadata() or ())
    return caught.value.code().name, str(trailers.get(REASON_HEADER, ""))


async def find(lobby: Any, player: str, low: int, high: int) -> pb.Ticket:
    response = await lobby.FindGame(
        pb.FindGameRequest(
            player_id=player,
            request_key=f"{player}-1",
            options=backgammon(),
            min_stake=low,
            max_stake=high,
        )
    )
    ticket: pb.Ticket = response.ticket
    return ticket


async def until(check: Callable[[], Awaitable[bool]], seconds: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not await check():
        assert loop.time() < deadline, "timed out waiting"
        await asyncio.sleep(0.05)


async def test_two_players_asking_for_the_same_backgammon_stake_are_matched_on_the_host(
    platform: Platform,
) -> None:
    lobby = await platform.start_lobby()
    tickets = {}
    for player, stake in (("ann", 100), ("bob", 100), ("cid", 100), ("dan", 500)):
        tickets[player] = await find(lobby, player, stake, stake)
        platform.clock.now += timedelta(seconds=1)
    assert platform.wired is not None
    (table_id,) = await platform.wired.matchmaking.process()

    async def ticket(player: str) -> pb.Ticket:
        request = pb.GetTicketRequest(player_id=player, ticket_id=tickets[player].ticket_id)
        found: pb.Ticket = (await lobby.GetTicket(request)).ticket
        return found

    ann, bob, cid, dan = [await ticket(p) for p in ("ann", "bob", "cid", "dan")]
    assert ann.status == bob.status == pb.TICKET_STATUS_SEATED
    assert ann.table_id == bob.table_id == table_id and ann.stake.amount_minor == 100
    view = await platform.host.GetView(table_pb2.GetViewRequest(table_id=table_id, player_id="ann"))
    assert set(view.view.seated) == {"ann", "bob"}
    platform.clock.now += timedelta(minutes=1)
    assert await platform.wired.matchmaking.process() == []
    assert cid.status == dan.status == pb.TICKET_STATUS_WAITING
    assert (await ticket("dan")).status == pb.TICKET_STATUS_WAITING
    # The lobby's events leave through the outbox to Kafka.
    seen = await lobby_events(platform.kafka_bootstrap, ann.ticket_id)
    assert "lobby.ticket_changed" in {envelope.type for envelope in seen}


async def test_a_ticket_is_seated_at_a_compatible_open_table(platform: Platform) -> None:
    lobby = await platform.start_lobby()
    opened = await lobby.OpenTable(
        pb.OpenTableRequest(player_id="ann", request_key="g", options=backgammon(100))
    )
    eve = await find(lobby, "eve", 100, 200)
    platform.clock.now += timedelta(seconds=1)
    assert platform.wired is not None
    assert await platform.wired.matchmaking.process() == [opened.table.table_id]
    request = pb.GetTicketRequest(player_id="eve", ticket_id=eve.ticket_id)
    seated = (await lobby.GetTicket(request)).ticket
    assert (seated.status, seated.table_id) == (pb.TICKET_STATUS_SEATED, opened.table.table_id)
    assert seated.stake.amount_minor == 100
    view = await platform.host.GetView(
        table_pb2.GetViewRequest(table_id=opened.table.table_id, player_id="ann")
    )
    assert set(view.view.seated) == {"ann", "eve"}


async def lobby_events(kafka_bootstrap: str, subject: str) -> list[Envelope]:
    """The envelopes about `subject` on croupier.lobby.events (waits for the first)."""
    from aiokafka import AIOKafkaConsumer

    consumer = AIOKafkaConsumer(
        EVENTS_TOPIC,
        bootstrap_servers=kafka_bootstrap,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    await consumer.start()
    found: list[Envelope] = []
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while not found and loop.time() < deadline:
            batches = await consumer.getmany(timeout_ms=500)
            for records in batches.values():
                for record in records:
                    envelope = Envelope.FromString(record.value)
                    if envelope.subject == subject:
                        found.append(envelope)
    finally:
        await consumer.stop()
    return found


async def test_a_private_joker_table_refuses_a_player_without_the_invite(
    platform: Platform,
) -> None:
    lobby = await platform.start_lobby()
    opened = await lobby.OpenTable(
        pb.OpenTableRequest(
            player_id="giorgi",
            request_key="friends",
            options=table_pb2.GameOptions(joker=joker_pb2.Options()),
            privacy=pb.Privacy(invited=["nika"], with_code=True),
        )
    )
    table_id = opened.table.table_id
    assert opened.table.private and opened.invite_code
    before = await platform.rows()
    assert await refused(
        lobby.JoinTable(pb.JoinTableRequest(player_id="eve", table_id=table_id))
    ) == ("PERMISSION_DENIED", "not_invited")
    assert await platform.rows() == before
    joined = await lobby.JoinTable(pb.JoinTableRequest(player_id="nika", table_id=table_id))
    coded = await lobby.JoinTable(
        pb.JoinTableRequest(player_id="ana", table_id=table_id, invite_code=opened.invite_code)
    )
    assert (joined.seat, coded.seat) == (1, 2)
    assert list(coded.table.seated) == ["giorgi", "nika", "ana"]
    public = await lobby.ListTables(pb.ListTablesRequest(player_id="eve"))
    assert list(public.tables) == []


async def test_bad_input_answers_a_clear_status_and_reserves_nothing(platform: Platform) -> None:
    lobby = await platform.start_lobby()
    opened = await lobby.OpenTable(
        pb.OpenTableRequest(player_id="ann", request_key="g1", options=backgammon(100))
    )
    table_id = opened.table.table_id
    private = await lobby.OpenTable(
        pb.OpenTableRequest(
            player_id="ann",
            request_key="g2",
            options=backgammon(100),
            privacy=pb.Privacy(invited=[]),
        )
    )
    await lobby.JoinTable(pb.JoinTableRequest(player_id="bob", table_id=table_id))
    await lobby.SetAccountLimits(
        pb.SetAccountLimitsRequest(
            player_id="cap", max_stakes=[common_pb2.Money(amount_minor=50, currency="CHIP")]
        )
    )
    before = await platform.rows()
    calls: dict[str, Awaitable[Any]] = {
        "unknown game": lobby.FindGame(
            pb.FindGameRequest(player_id="cid", request_key="k", min_stake=1, max_stake=1)
        ),
        "unknown game in a filter": lobby.ListTables(
            pb.ListTablesRequest(filter=pb.TableFilter(game=42))  # type: ignore[arg-type]
        ),
        "stakes out of range": find(lobby, "cid", 300, 100),
        "a stake above the limit": find(lobby, "cap", 100, 100),
        "a negative stake": find(lobby, "cid", -5, 100),
        "a negative stake to open": lobby.OpenTable(
            pb.OpenTableRequest(player_id="cid", request_key="k", options=backgammon(-5))
        ),
        "a full table": lobby.JoinTable(pb.JoinTableRequest(player_id="cid", table_id=table_id)),
        "a private table": lobby.JoinTable(
            pb.JoinTableRequest(player_id="cid", table_id=private.table.table_id)
        ),
        "twice": lobby.JoinTable(pb.JoinTableRequest(player_id="bob", table_id=table_id)),
        "an unknown table": lobby.JoinTable(pb.JoinTableRequest(player_id="cid", table_id="nope")),
    }
    answers = {name: (await refused(call))[0] for name, call in calls.items()}
    assert answers == {
        "unknown game": "INVALID_ARGUMENT",
        "unknown game in a filter": "INVALID_ARGUMENT",
        "stakes out of range": "INVALID_ARGUMENT",
        "a stake above the limit": "FAILED_PRECONDITION",
        "a negative stake": "INVALID_ARGUMENT",
        "a negative stake to open": "INVALID_ARGUMENT",
        "a full table": "FAILED_PRECONDITION",
        "a private table": "PERMISSION_DENIED",
        "twice": "ALREADY_EXISTS",
        "an unknown table": "NOT_FOUND",
    }
    assert await platform.rows() == before


async def test_the_listing_follows_the_host_events_on_kafka(
    platform: Platform, unique: Callable[[str], str]
) -> None:
    lobby = await platform.start_lobby()
    # A Joker table of two deals nothing, so a player leaves at once. The request key is
    # unique: the host's table id derives from it, and the broker's topic is shared.
    opened = await lobby.OpenTable(
        pb.OpenTableRequest(
            player_id="ann",
            request_key=unique("g"),
            options=table_pb2.GameOptions(joker=joker_pb2.Options()),
        )
    )
    table_id = opened.table.table_id
    await lobby.JoinTable(pb.JoinTableRequest(player_id="bob", table_id=table_id))
    await platform.host.UnseatPlayer(
        table_pb2.UnseatPlayerRequest(table_id=table_id, player_id="bob")
    )

    async def seated() -> list[str]:
        listed = await lobby.ListTables(pb.ListTablesRequest())
        return [p for t in listed.tables if t.table_id == table_id for p in t.seated]

    async def only_ann() -> bool:
        return await seated() == ["ann"]

    await until(only_ann)
    await platform.host.CloseTable(table_pb2.CloseTableRequest(table_id=table_id))

    async def gone() -> bool:
        return not (await lobby.ListTables(pb.ListTablesRequest())).tables

    await until(gone)


async def test_a_restart_over_the_same_database_keeps_open_games_and_queued_tickets(
    platform: Platform,
) -> None:
    lobby = await platform.start_lobby()
    opened = await lobby.OpenTable(
        pb.OpenTableRequest(player_id="ann", request_key="g", options=backgammon(100))
    )
    cid = await find(lobby, "cid", 100, 200)
    await platform.stop_lobby()

    lobby = await platform.start_lobby()
    listed = await lobby.ListTables(pb.ListTablesRequest())
    assert [(t.table_id, list(t.seated)) for t in listed.tables] == [
        (opened.table.table_id, ["ann"])
    ]
    waiting = await lobby.GetTicket(pb.GetTicketRequest(player_id="cid", ticket_id=cid.ticket_id))
    assert waiting.ticket.status == pb.TICKET_STATUS_WAITING
    # Nobody is seated twice: the opener again is refused; others play on.
    assert (
        await refused(
            lobby.JoinTable(pb.JoinTableRequest(player_id="ann", table_id=opened.table.table_id))
        )
    )[0] == "ALREADY_EXISTS"
    await lobby.JoinTable(pb.JoinTableRequest(player_id="bob", table_id=opened.table.table_id))
    await find(lobby, "dan", 150, 150)
    assert platform.wired is not None
    (table_id,) = await platform.wired.matchmaking.process()
    matched = await lobby.GetTicket(pb.GetTicketRequest(player_id="cid", ticket_id=cid.ticket_id))
    assert matched.ticket.status == pb.TICKET_STATUS_SEATED
    assert matched.ticket.table_id == table_id and matched.ticket.stake.amount_minor == 150


async def test_results_on_kafka_rate_once_in_postgres_and_the_last_match_is_not_repeated(
    platform: Platform,
) -> None:
    lobby = await platform.start_lobby()
    assert platform.wired is not None

    async def queue(player: str, key: str, **fields: Any) -> pb.Ticket:
        request = pb.FindGameRequest(
            player_id=player,
            request_key=key,
            options=backgammon(),
            min_stake=100,
            max_stake=100,
            **fields,
        )
        response = await lobby.FindGame(request)
        platform.clock.now += timedelta(seconds=1)  # tickets are served in this order
        ticket: pb.Ticket = response.ticket
        return ticket

    await queue("ann", "1")
    await queue("bob", "1")
    (table_id,) = await platform.wired.matchmaking.process()
    # The host's own envelopes (croupier.table.adapters.sink): bob wins, the same event
    # arrives twice, then ann wins the next game.
    first = public_events(table_id, "backgammon", 7, [Event("game_ended", {"winner": "bob"})])
    second = public_events(table_id, "backgammon", 9, [Event("game_ended", {"winner": "ann"})])
    # The lobby's own bus may still be connecting; the host's events come from another
    # producer anyway (the lobby's group reads from where the fixture placed it).
    host_bus = KafkaBus(bootstrap_servers=platform.kafka_bootstrap)
    await host_bus.start()
    try:
        await host_bus.publish_many([first[0], first[0], second[0]])
    finally:
        await host_bus.stop()

    async def rating(player: str) -> pb.GetRatingResponse:
        request = pb.GetRatingRequest(player_id=player, game=common_pb2.GAME_BACKGAMMON)
        found: pb.GetRatingResponse = await lobby.GetRating(request)
        return found

    async def both_games_rated() -> bool:
        return (await rating("ann")).experience == 2

    await until(both_games_rated)
    # Experience 0, K = 5: bob +10 (equal ratings); then experience 1, K = 4.99: ann, the
    # underdog at 1490 against 1510, gains 4 * 4.99 * (1 - P_upset), where
    # P_upset = 1 / (10^(20/2000) + 1), and bob loses as much.
    gain = 4 * 4.99 * (1 - 1 / (10 ** (20 / 2000) + 1))
    ann, bob = await rating("ann"), await rating("bob")
    assert bob.experience == 2
    assert ann.rating == pytest.approx(1490 + gain)
    assert bob.rating == pytest.approx(1510 - gain)

    picky = await queue("cid", "1", rating_range=pb.RatingRange(min=1600, max=1700))
    assert picky.rating == 1500
    assert await refused(
        lobby.FindGame(
            pb.FindGameRequest(
                player_id="dan",
                request_key="1",
                options=backgammon(),
                rating_range=pb.RatingRange(min=1700, max=1600),
            )
        )
    ) == ("INVALID_ARGUMENT", "out_of_bounds")
    await lobby.CancelTicket(pb.CancelTicketRequest(player_id="cid", ticket_id=picky.ticket_id))
    again = [await queue(player, "2") for player in ("bob", "ann", "cid")]
    await platform.wired.matchmaking.process()
    statuses = [
        (
            await lobby.GetTicket(pb.GetTicketRequest(player_id=t.player_id, ticket_id=t.ticket_id))
        ).ticket.status
        for t in again
    ]
    assert statuses == [pb.TICKET_STATUS_SEATED, pb.TICKET_STATUS_WAITING, pb.TICKET_STATUS_SEATED]


async def test_a_waiting_list_on_postgres_seats_at_a_free_seat_and_keeps_the_order(
    platform: Platform,
) -> None:
    lobby = await platform.start_lobby()
    opened = await lobby.OpenTable(
        pb.OpenTableRequest(player_id="ann", request_key="g", options=backgammon(100))
    )

    async def wait(player: str) -> int:
        request = pb.JoinWaitingListRequest(player_id=player, options=backgammon(100))
        position: int = (await lobby.JoinWaitingList(request)).position
        return position

    assert await wait("bob") == 0  # ann's game had a seat: bob is seated there
    listed = await lobby.ListTables(pb.ListTablesRequest())
    assert [list(t.seated) for t in listed.tables] == [["ann", "bob"]]
    assert listed.tables[0].table_id == opened.table.table_id
    assert [await wait("cid"), await wait("dan")] == [1, 2]
    assert await refused(lobby.JoinWaitingList(
        pb.JoinWaitingListRequest(player_id="cid", options=backgammon(100))
    )) == ("ALREADY_EXISTS", "already_waiting")  # fmt: skip
    leave = pb.LeaveWaitingListRequest(player_id="cid", options=backgammon(100))
    await lobby.LeaveWaitingList(leave)
    assert await refused(lobby.LeaveWaitingList(leave)) == ("NOT_FOUND", "not_waiting")
    assert await wait("eve") == 2  # behind dan
