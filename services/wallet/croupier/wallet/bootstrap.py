"""Wire the wallet: settings → PostgreSQL pool (migrated), event bus, outbox relay, request
consumer → gRPC service.

`croupier serve wallet` calls `create_services()`; tests, the embedded mode and the CLI
call `build_wallet` with their own pool, bus and registry, so every configuration is wired
the same way.

Start-up order: gRPC serves as soon as PostgreSQL is reachable and migrated (every RPC is
PostgreSQL only). The Kafka side (the outbox relay, the request consumer) connects in the
background and retries while the broker cannot be reached; the outbox keeps the events and
the requests topic keeps the settlements meanwhile. The consumer is a static member of its
group when `CROUPIER_WALLET_INSTANCE_ID` is set, so a restarted wallet takes its partitions
back at once instead of after the dead process's session timeout.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import asyncpg  # type: ignore[import-untyped]
from prometheus_client import REGISTRY, CollectorRegistry

from croupier.kit.bus.interface import EventBus, Subscription
from croupier.kit.migrations import migrate, migrate_database
from croupier.kit.outbox import OutboxRelay
from croupier.kit.server import Service, StopHook
from croupier.kit.settings import choice, env, load, positive_float, positive_int, sql_identifier
from croupier.kit.tasks import cancel, keep_trying
from croupier.kit.wiring import bus_from_settings, start_relaying
from croupier.wallet.adapters.coupons import PostgresCoupons
from croupier.wallet.adapters.metrics import PrometheusWalletMetrics
from croupier.wallet.adapters.postgres import PostgresUnitOfWork, create_pool
from croupier.wallet.adapters.reports_pg import PostgresReportSource
from croupier.wallet.adapters.requests_pg import PostgresRequestLog
from croupier.wallet.entrypoints.consumer import (
    CONSUMER_GROUP,
    REQUESTS_TOPIC,
    WalletRequestHandler,
)
from croupier.wallet.entrypoints.events import TRANSFERS_TOPIC, encode_transfer_posted
from croupier.wallet.entrypoints.grpc_api import SERVICE_NAME, WalletService
from croupier.wallet.service.coupons import Coupons
from croupier.wallet.service.games import GameMoney
from croupier.wallet.service.ledger import LedgerService
from croupier.wallet.service.reports import JournalRow, ReportService
from croupier.wallet.v1 import wallet_pb2_grpc

__all__ = ["Wallet", "WalletSettings", "build_wallet", "create_services", "open_database"]


_log = logging.getLogger(__name__)

#: Concurrent single transfers share transactions, at most this many at a time (grouping.py).
DEFAULT_GROUP_COMMITS = 4


@dataclass(frozen=True)
class WalletSettings:
    postgres_dsn: str = env("CROUPIER_POSTGRES_DSN", str, doc="the wallet's PostgreSQL")
    schema: str = env("CROUPIER_WALLET_SCHEMA", sql_identifier, "wallet", doc="its schema")
    pool_size: int = env("CROUPIER_WALLET_POOL_SIZE", positive_int, 10, doc="connections")
    group_commits: int = env(
        "CROUPIER_WALLET_GROUP_COMMITS",
        positive_int,
        DEFAULT_GROUP_COMMITS,
        doc="single transfers' shared transactions running at once",
    )
    bus: str = env("CROUPIER_WALLET_BUS", choice("kafka", "memory"), "kafka", doc="event bus")
    kafka_bootstrap: str = env(
        "CROUPIER_KAFKA_BOOTSTRAP", str, "127.0.0.1:9092", doc="Kafka bootstrap servers"
    )
    requests_topic: str = env("CROUPIER_WALLET_REQUESTS_TOPIC", str, REQUESTS_TOPIC)
    transfers_topic: str = env("CROUPIER_WALLET_TRANSFERS_TOPIC", str, TRANSFERS_TOPIC)
    consumer_group: str = env("CROUPIER_WALLET_CONSUMER_GROUP", str, CONSUMER_GROUP)
    instance_id: str = env(
        "CROUPIER_WALLET_INSTANCE_ID",
        str,
        "",
        doc="stable replica name (a pod's name): a restart rejoins the consumer group at once",
    )
    kafka_connect_seconds: float = env(
        "CROUPIER_WALLET_KAFKA_CONNECT_SECONDS",
        positive_float,
        30.0,
        doc="how long one attempt to reach the broker waits (then it is retried)",
    )


@dataclass
class Wallet:
    """The wired wallet and what must be stopped, in order."""

    pool: asyncpg.Pool
    ledger: LedgerService
    games: GameMoney
    reports: ReportService
    metrics: PrometheusWalletMetrics
    handler: WalletRequestHandler
    relay: OutboxRelay | None
    subscription: Subscription | None = None
    stop_hooks: list[StopHook] = field(default_factory=list)
    connecting: asyncio.Task[None] | None = None

    def service(self) -> Service:
        servicer = WalletService(self.ledger, self.games, self.reports)
        return Service(
            name=SERVICE_NAME,
            register=lambda server: wallet_pb2_grpc.add_WalletServicer_to_server(servicer, server),
        )

    async def stop(self) -> None:
        """Stop connecting or consuming, flush the outbox relay. Safe to call twice."""
        connecting, self.connecting = self.connecting, None
        await cancel(connecting)
        hooks, self.stop_hooks = self.stop_hooks, []
        for hook in hooks:
            await hook()

    async def attach(
        self, bus: EventBus, *, schema: str, requests_topic: str, consumer_group: str, consume: bool
    ) -> None:
        """Start `bus`, relay the outbox to it and (with `consume`) consume requests."""

        async def subscribe() -> Subscription:
            return await bus.subscribe(
                requests_topic, group=consumer_group, handler=self.handler, max_attempts=None
            )

        relaying = await start_relaying(
            bus, pool=self.pool, schema=schema, subscribe=subscribe if consume else None
        )
        self.relay, self.subscription = relaying.relay, relaying.subscription
        self.stop_hooks.extend(relaying.stop_hooks())
        self.metrics.kafka_connected.set(1)

    def attach_in_background(self, bus: EventBus, **options: Any) -> None:
        """`attach`, retrying until the broker answers; returns at once."""
        self.metrics.kafka_connected.set(0)
        self.connecting = asyncio.create_task(self._connect(bus, options), name="wallet:kafka")

    async def _connect(self, bus: EventBus, options: dict[str, Any]) -> None:
        await keep_trying(
            lambda: self.attach(bus, **options), failure="wallet: Kafka not reachable", log=_log
        )
        _log.info("wallet: Kafka connected, consuming requests")


MIGRATION_LOCK = 0x57A11E7  # the advisory lock id of "wallet migrations"
MIGRATIONS = "croupier.wallet.adapters"  # the package whose migrations/ folder they are


async def migrate_ledger(connection: asyncpg.Connection, schema: str) -> list[int]:
    """Apply the ledger's pending migrations (`adapters/migrations/`) to `schema`."""
    return await migrate(connection, schema, MIGRATIONS, MIGRATION_LOCK)


async def open_database(dsn: str, schema: str, *, pool_size: int = 10) -> asyncpg.Pool:
    """Apply pending migrations, then open the pool."""
    await migrate_database(dsn, schema, MIGRATIONS, MIGRATION_LOCK)
    return await create_pool(dsn, schema, min_size=min(2, pool_size), max_size=pool_size)


def _journal_parquet(rows: Sequence[JournalRow]) -> bytes:
    # pyarrow takes most of a second to import: at the first Parquet export, not at start-up.
    from croupier.wallet.adapters.parquet import journal_parquet

    return journal_parquet(rows)


def utc_now() -> datetime:
    return datetime.now(UTC)


async def build_wallet(
    *,
    pool: asyncpg.Pool,
    schema: str,
    bus: EventBus | None,
    registry: CollectorRegistry,
    clock: Callable[[], datetime] = utc_now,
    requests_topic: str = REQUESTS_TOPIC,
    transfers_topic: str = TRANSFERS_TOPIC,
    consumer_group: str = CONSUMER_GROUP,
    consume: bool = True,
    group_commits: int = DEFAULT_GROUP_COMMITS,
    connect_in_background: bool = False,
) -> Wallet:
    """Wire the wallet on `pool`. With a bus: relay the outbox and consume requests, on the
    started bus now, or (`connect_in_background`) once the bus could be started."""
    metrics = PrometheusWalletMetrics(registry)
    encoder = functools.partial(encode_transfer_posted, topic=transfers_topic)
    # No NOTIFY per transfer: PostgreSQL serializes the commits of notifying transactions
    # on one global lock (measured: single transfers stopped scaling with clients at
    # ~345/s). The relay polls instead, every `croupier.kit.wiring.RELAY_POLL_SECONDS`.
    uow = PostgresUnitOfWork.factory(pool, outbox_encoder=encoder)
    ledger = LedgerService(
        unit_of_work=uow, clock=clock, metrics=metrics, group_commits=group_commits
    )
    games = GameMoney(ledger, Coupons(PostgresCoupons(pool), ledger))
    reports = ReportService(PostgresReportSource(pool), parquet_writer=_journal_parquet)
    dead_letters: Any = bus
    handler = WalletRequestHandler(
        ledger=ledger,
        games=games,
        requests=PostgresRequestLog(pool),
        dead_letters=dead_letters,
        metrics=metrics,
        clock=clock,
        topic=requests_topic,
        group=consumer_group,
    )
    wallet = Wallet(
        pool=pool,
        ledger=ledger,
        games=games,
        reports=reports,
        metrics=metrics,
        handler=handler,
        relay=None,
    )
    if bus is not None:
        options: dict[str, Any] = {
            "schema": schema,
            "requests_topic": requests_topic,
            "consumer_group": consumer_group,
            "consume": consume,
        }
        if connect_in_background:
            wallet.attach_in_background(bus, **options)
        else:
            await wallet.attach(bus, **options)
    return wallet


async def create_services() -> tuple[list[Service], list[StopHook]]:
    settings = load(WalletSettings)
    pool = await open_database(settings.postgres_dsn, settings.schema, pool_size=settings.pool_size)
    # Static membership: a restart under the same name rejoins with its partitions.
    consumer_options = {"group_instance_id": settings.instance_id} if settings.instance_id else {}
    bus = bus_from_settings(
        settings.bus,
        bootstrap_servers=settings.kafka_bootstrap,
        client_id="croupier-wallet",
        consumer_options=consumer_options,
        connect_timeout_seconds=settings.kafka_connect_seconds,
    )
    wallet = await build_wallet(
        pool=pool,
        schema=settings.schema,
        bus=bus,
        registry=REGISTRY,
        requests_topic=settings.requests_topic,
        transfers_topic=settings.transfers_topic,
        consumer_group=settings.consumer_group,
        group_commits=settings.group_commits,
        connect_in_background=True,
    )
    return [wallet.service()], [wallet.stop, bus.stop, pool.close]
