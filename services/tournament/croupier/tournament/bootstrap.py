"""Wire the tournament director: settings → PostgreSQL pool (migrated), wallet and table
host clients, event bus and outbox relay, the table events consumer, scheduler → gRPC
service.

`croupier serve tournament` calls `create_services()`; tests and the embedded platform
call `build_director` with their own pool, wallet and bus, so every configuration is
wired the same way. Events are written to the outbox with each change and relayed to
`croupier.tournament.events` once the bus is reached (in the background: the director
serves meanwhile, the outbox keeps the events). Then the running tournaments are resumed
(their saved rounds driven on the table host again) before the rounds' results are read
from `croupier.table.events`, so no result arrives for a table the director forgot.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from croupier.kit.bus.interface import EventBus, Subscription
from croupier.kit.migrations import migrate_database
from croupier.kit.seeds import new_seed
from croupier.kit.server import Service, StopHook
from croupier.kit.service_auth import credential_from_environment
from croupier.kit.settings import choice, env, load, positive_float, positive_int, sql_identifier
from croupier.kit.tasks import Periodic, cancel, keep_trying
from croupier.kit.wiring import bus_from_settings, start_relaying
from croupier.tournament.adapters.postgres import PostgresRepository, create_pool
from croupier.tournament.adapters.tables import GrpcTableHost
from croupier.tournament.adapters.wallet import GrpcWallet
from croupier.tournament.entrypoints import table_events
from croupier.tournament.entrypoints.grpc_api import SERVICE_NAME, TournamentDirectorService
from croupier.tournament.service.director import Director
from croupier.tournament.service.ports import Clock, Seeds, TableHost, Wallet
from croupier.tournament.service.scheduler import scheduler as director_scheduler
from croupier.tournament.v1 import tournament_pb2_grpc

__all__ = [
    "DirectorSettings",
    "Wired",
    "build_director",
    "create_services",
    "open_database",
    "utc_now",
]

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DirectorSettings:
    postgres_dsn: str = env("CROUPIER_POSTGRES_DSN", str, doc="the director's PostgreSQL")
    schema: str = env("CROUPIER_TOURNAMENT_SCHEMA", sql_identifier, "tournament", doc="its schema")
    pool_size: int = env("CROUPIER_TOURNAMENT_POOL_SIZE", positive_int, 5, doc="connections")
    wallet_address: str = env(
        "CROUPIER_WALLET_ADDRESS", str, "127.0.0.1:50051", doc="the wallet's gRPC address"
    )
    table_address: str = env(
        "CROUPIER_TABLE_ADDRESS", str, "127.0.0.1:50051", doc="the table host's gRPC address"
    )
    bus: str = env("CROUPIER_TOURNAMENT_BUS", choice("kafka", "memory"), "kafka", doc="event bus")
    kafka_bootstrap: str = env(
        "CROUPIER_KAFKA_BOOTSTRAP", str, "127.0.0.1:9092", doc="Kafka bootstrap servers"
    )
    table_events_group: str = env(
        "CROUPIER_TOURNAMENT_TABLE_EVENTS_GROUP",
        str,
        table_events.CONSUMER_GROUP,
        doc="the consumer group reading the rounds' results from croupier.table.events",
    )
    scheduler_seconds: float = env(
        "CROUPIER_TOURNAMENT_SCHEDULER_SECONDS",
        positive_float,
        1.0,
        doc="how often due tournaments are started (or cancelled below their minimum)",
    )


def utc_now() -> datetime:
    return datetime.now(UTC)


MIGRATION_LOCK = 0x7047A3E7  # the advisory lock id of "tournament migrations"


async def open_database(dsn: str, schema: str, *, pool_size: int = 5) -> Any:
    """Apply pending migrations, then open the pool."""
    await migrate_database(dsn, schema, "croupier.tournament.adapters", MIGRATION_LOCK)
    return await create_pool(dsn, schema, min_size=1, max_size=pool_size)


@dataclass
class Wired:
    """The wired director and what must be stopped, in order."""

    director: Director
    scheduler: Periodic | None
    stop_hooks: list[StopHook] = field(default_factory=list)
    connecting: asyncio.Task[None] | None = None

    def service(self) -> Service:
        servicer = TournamentDirectorService(self.director)
        return Service(
            name=SERVICE_NAME,
            register=lambda server: tournament_pb2_grpc.add_TournamentDirectorServicer_to_server(
                servicer, server
            ),
        )

    async def stop(self) -> None:
        """Stop the scheduler, connecting and relaying. Safe to call twice."""
        if self.scheduler is not None:
            await self.scheduler.stop()
        connecting, self.connecting = self.connecting, None
        await cancel(connecting)
        hooks, self.stop_hooks = self.stop_hooks, []
        for hook in hooks:
            await hook()

    def relay_in_background(
        self, pool: Any, schema: str, bus: EventBus, group: str = table_events.CONSUMER_GROUP
    ) -> None:
        """Start the bus and the outbox relay, retrying until the broker answers; then
        resume the running tournaments and read the rounds' results."""
        self.connecting = asyncio.create_task(
            self._relay(pool, schema, bus, group), name="tournament:kafka"
        )

    async def _relay(self, pool: Any, schema: str, bus: EventBus, group: str) -> None:
        relaying = await keep_trying(
            lambda: start_relaying(bus, pool=pool, schema=schema),
            failure="tournament: Kafka not reachable",
            log=_log,
        )
        self.stop_hooks[:0] = relaying.stop_hooks()
        subscription = await keep_trying(
            lambda: self._play(bus, group),
            failure="tournament: resuming the rounds failed",
            log=_log,
        )
        self.stop_hooks.insert(0, subscription.stop)

    async def _play(self, bus: EventBus, group: str) -> Subscription:
        await self.director.rounds.advance_running()
        return await table_events.subscribe(bus, self.director, group)


def build_director(
    *,
    pool: Any,
    schema: str,
    wallet: Wallet,
    tables: TableHost,
    bus: EventBus | None,
    clock: Clock = utc_now,
    seeds: Seeds = new_seed,
    scheduler_seconds: float | None = 1.0,
    table_events_group: str = table_events.CONSUMER_GROUP,
) -> Wired:
    """The director on `pool`, playing rounds on `tables`; with a bus, its outbox relayed
    there and the rounds' results read from it (started in the background); with
    `scheduler_seconds`, due tournaments started and running ones advanced on the clock.
    `table_events_group`: the consumer group reading the rounds' results (tests sharing a
    broker each use their own)."""
    director = Director(
        repository=PostgresRepository(pool, schema),
        wallet=wallet,
        tables=tables,
        clock=clock,
        seeds=seeds,
    )
    scheduler = None
    if scheduler_seconds is not None:
        scheduler = director_scheduler(director, scheduler_seconds)
        scheduler.start()
    wired = Wired(director=director, scheduler=scheduler)
    if bus is not None:
        wired.relay_in_background(pool, schema, bus, table_events_group)
    return wired


async def create_services() -> tuple[list[Service], list[StopHook]]:
    settings = load(DirectorSettings)
    pool = await open_database(settings.postgres_dsn, settings.schema, pool_size=settings.pool_size)
    bus = bus_from_settings(
        settings.bus, bootstrap_servers=settings.kafka_bootstrap, client_id="croupier-tournament"
    )
    credential = credential_from_environment("tournament")
    wallet = GrpcWallet(settings.wallet_address, credential=credential)
    tables = GrpcTableHost(settings.table_address, credential=credential)
    wired = build_director(
        pool=pool,
        schema=settings.schema,
        wallet=wallet,
        tables=tables,
        bus=bus,
        scheduler_seconds=settings.scheduler_seconds,
        table_events_group=settings.table_events_group,
    )
    return [wired.service()], [wired.stop, wallet.close, tables.close, bus.stop, pool.close]
