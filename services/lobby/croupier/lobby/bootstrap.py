"""Wire the lobby: settings → PostgreSQL pool (migrated), the table host's client, event
bus (outbox relay to `croupier.lobby.events`, a consumer of `croupier.table.events`) and
the ticker → gRPC service.

`croupier serve lobby` calls `create_services()`; tests and the embedded platform call
`build_lobby` with their own pool, host and bus, so every configuration is wired the same
way. The lobby serves before Kafka answers: the outbox keeps its events, and the listing
catches up with the host's events once the consumer joins (in the background).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from croupier.kit.bus.interface import EventBus, Subscription
from croupier.kit.migrations import migrate_database
from croupier.kit.server import Service, StopHook
from croupier.kit.service_auth import credential_from_environment
from croupier.kit.settings import choice, env, load, positive_float, positive_int, sql_identifier
from croupier.kit.tasks import Periodic, cancel, keep_trying, stop_within
from croupier.kit.wiring import bus_from_settings, start_relaying
from croupier.lobby.adapters.director_grpc import GrpcDirector, load_templates
from croupier.lobby.adapters.host_grpc import GrpcTableHost
from croupier.lobby.adapters.postgres import PostgresRepository, PostgresTickLock, create_pool
from croupier.lobby.core.matchmaker import MatchmakerSettings
from croupier.lobby.entrypoints.grpc_api import SERVICE_NAME, LobbyService
from croupier.lobby.entrypoints.table_events import TABLE_EVENTS_TOPIC, TableEvents
from croupier.lobby.entrypoints.tournament_events import TOURNAMENT_EVENTS_TOPIC, TournamentEvents
from croupier.lobby.service.accounts import Accounts
from croupier.lobby.service.matchmaking import Matchmaking
from croupier.lobby.service.ports import Clock, Codes, Director, QueueTemplate, TableHost
from croupier.lobby.service.queues import TournamentQueues
from croupier.lobby.service.ratings import Ratings
from croupier.lobby.service.tables import Tables
from croupier.lobby.service.ticker import ticker as lobby_ticker
from croupier.lobby.service.waiting import WaitingLists
from croupier.lobby.v1 import lobby_pb2_grpc

__all__ = ["LobbySettings", "Wired", "build_lobby", "create_services", "open_database"]

_log = logging.getLogger(__name__)
MIGRATION_LOCK = 0x10BB7  # the advisory lock id of "lobby migrations"
CONSUMER_GROUP = "croupier-lobby"


@dataclass(frozen=True)
class LobbySettings:
    postgres_dsn: str = env("CROUPIER_POSTGRES_DSN", str, doc="the lobby's PostgreSQL")
    schema: str = env("CROUPIER_LOBBY_SCHEMA", sql_identifier, "lobby", doc="its schema")
    pool_size: int = env("CROUPIER_LOBBY_POOL_SIZE", positive_int, 5, doc="connections")
    table_address: str = env(
        "CROUPIER_TABLE_ADDRESS", str, "127.0.0.1:50051", doc="the table host's gRPC address"
    )
    bus: str = env("CROUPIER_LOBBY_BUS", choice("kafka", "memory"), "kafka", doc="event bus")
    kafka_bootstrap: str = env(
        "CROUPIER_KAFKA_BOOTSTRAP", str, "127.0.0.1:9092", doc="Kafka bootstrap servers"
    )
    tick_seconds: float = env(
        "CROUPIER_LOBBY_TICK_SECONDS",
        positive_float,
        0.5,
        doc="how often tickets are matched and lapsed seat holds released",
    )
    hold_seconds: float = env(
        "CROUPIER_LOBBY_HOLD_SECONDS", positive_float, 30.0, doc="how long a joined seat is held"
    )
    widen_after_seconds: float = env(
        "CROUPIER_LOBBY_WIDEN_AFTER_SECONDS",
        positive_float,
        10.0,
        doc="how long a ticket waits for a full table before accepting the fewest players",
    )
    ticket_ttl_seconds: float = env(
        "CROUPIER_LOBBY_TICKET_TTL_SECONDS", positive_float, 600.0, doc="a ticket's life"
    )
    tournament_address: str = env(
        "CROUPIER_TOURNAMENT_ADDRESS",
        str,
        "",
        doc="the tournament director's gRPC address (empty: no Sit & Go or Spin queues)",
    )
    queues_file: str = env(
        "CROUPIER_LOBBY_QUEUES",
        str,
        "",
        doc="a JSON file of Sit & Go and Spin queues (docs/lobby.md; empty: the built-in ones)",
    )


def utc_now() -> datetime:
    return datetime.now(UTC)


def new_code() -> str:
    return secrets.token_urlsafe(9)


async def open_database(dsn: str, schema: str, *, pool_size: int = 5) -> Any:
    """Apply pending migrations, then open the pool."""
    await migrate_database(dsn, schema, "croupier.lobby.adapters", MIGRATION_LOCK)
    return await create_pool(dsn, schema, min_size=1, max_size=pool_size)


@dataclass
class Wired:
    """The wired lobby and what must be stopped, in order."""

    tables: Tables
    matchmaking: Matchmaking
    accounts: Accounts
    ratings: Ratings
    waiting: WaitingLists
    queues: TournamentQueues
    ticker: Periodic | None
    tournament_events: TournamentEvents | None = None
    """With a director: finished tournaments rate their entrants."""
    stop_hooks: list[StopHook] = field(default_factory=list)
    connecting: asyncio.Task[None] | None = None

    def service(self) -> Service:
        servicer = LobbyService(
            self.tables, self.matchmaking, self.accounts, self.waiting, self.queues
        )
        return Service(
            name=SERVICE_NAME,
            register=lambda server: lobby_pb2_grpc.add_LobbyServicer_to_server(servicer, server),
        )

    async def stop(self) -> None:
        """Stop the ticker, connecting, consuming and relaying. Safe to call twice."""
        if self.ticker is not None:
            await self.ticker.stop()
        connecting, self.connecting = self.connecting, None
        await stop_within(cancel(connecting), "lobby: connecting to Kafka", _log)
        hooks, self.stop_hooks = self.stop_hooks, []
        for hook in hooks:
            await stop_within(hook(), f"lobby: {getattr(hook, '__qualname__', hook)}", _log)

    def connect_in_background(
        self, pool: Any, schema: str, bus: EventBus, consumer_group: str = CONSUMER_GROUP
    ) -> None:
        """Start the bus, the outbox relay and the table events' consumer, retrying until
        the broker answers."""
        self.connecting = asyncio.create_task(
            self._connect(pool, schema, bus, consumer_group), name="lobby:kafka"
        )

    async def _connect(self, pool: Any, schema: str, bus: EventBus, consumer_group: str) -> None:
        async def subscribe() -> Subscription:
            return await bus.subscribe(
                TABLE_EVENTS_TOPIC,
                group=consumer_group,
                handler=TableEvents(self.tables, self.ratings).handle,
                max_attempts=None,
            )

        relaying = await keep_trying(
            lambda: start_relaying(bus, pool=pool, schema=schema, subscribe=subscribe),
            failure="lobby: Kafka not reachable",
            log=_log,
        )
        self.stop_hooks[:0] = relaying.stop_hooks()
        if self.tournament_events is not None:
            handler = self.tournament_events.handle
            following = await keep_trying(
                lambda: bus.subscribe(
                    TOURNAMENT_EVENTS_TOPIC,
                    group=f"{consumer_group}-tournaments",
                    handler=handler,
                    max_attempts=None,
                ),
                failure="lobby: the tournament events not reachable",
                log=_log,
            )
            self.stop_hooks.insert(0, following.stop)


def build_lobby(
    *,
    pool: Any,
    schema: str,
    host: TableHost,
    bus: EventBus | None,
    clock: Clock = utc_now,
    codes: Codes = new_code,
    hold_for: timedelta = timedelta(seconds=30),
    matchmaker: MatchmakerSettings | None = None,
    tick_seconds: float | None = 0.5,
    consumer_group: str = CONSUMER_GROUP,
    director: Director | None = None,
    queues: tuple[QueueTemplate, ...] = (),
) -> Wired:
    """The lobby on `pool`, driving `host`; with a bus, its outbox relayed there and the
    host's events followed (started in the background); with `tick_seconds`, tickets
    matched and holds released on the clock; with a `director`, the Sit & Go and Spin
    `queues` filled there."""
    repository = PostgresRepository(pool, schema)
    tables = Tables(repository=repository, host=host, clock=clock, codes=codes, hold_for=hold_for)
    ratings = Ratings(repository)
    matchmaking = Matchmaking(
        repository=repository,
        tables=tables,
        clock=clock,
        settings=matchmaker or MatchmakerSettings(),
        ratings=ratings,
    )
    waiting = WaitingLists(repository=repository, tables=tables, clock=clock)
    ticker = None
    if tick_seconds is not None:
        alone = PostgresTickLock(pool, schema)
        ticker = lobby_ticker(matchmaking, tables, waiting, tick_seconds, alone)
        ticker.start()
    queued = TournamentQueues(
        repository=repository, director=director, templates=queues, clock=clock
    )
    wired = Wired(
        tables,
        matchmaking,
        Accounts(repository),
        ratings,
        waiting,
        queued,
        ticker,
        tournament_events=TournamentEvents(director, ratings, queued) if director else None,
    )
    if bus is not None:
        wired.connect_in_background(pool, schema, bus, consumer_group)
    return wired


async def create_services() -> tuple[list[Service], list[StopHook]]:
    settings = load(LobbySettings)
    pool = await open_database(settings.postgres_dsn, settings.schema, pool_size=settings.pool_size)
    bus = bus_from_settings(
        settings.bus, bootstrap_servers=settings.kafka_bootstrap, client_id="croupier-lobby"
    )
    credential = credential_from_environment("lobby")
    host = GrpcTableHost(settings.table_address, credential=credential)
    director = GrpcDirector(settings.tournament_address, credential)
    queues = load_templates(settings.queues_file) if settings.tournament_address else ()
    wired = build_lobby(
        pool=pool,
        schema=settings.schema,
        host=host,
        bus=bus,
        hold_for=timedelta(seconds=settings.hold_seconds),
        matchmaker=MatchmakerSettings(
            widen_after=timedelta(seconds=settings.widen_after_seconds),
            ttl=timedelta(seconds=settings.ticket_ttl_seconds),
        ),
        tick_seconds=settings.tick_seconds,
        director=director if settings.tournament_address else None,
        queues=queues,
    )
    return [wired.service()], [wired.stop, host.close, director.close, bus.stop, pool.close]
