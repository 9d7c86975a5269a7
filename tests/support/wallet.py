"""Wallet test fixtures: a fresh schema per test on the real PostgreSQL, the service wired to it
(registered for every test by tests/conftest.py); a dead-letter sink that keeps what it is
given."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from datetime import UTC, datetime, timedelta

import asyncpg  # type: ignore[import-untyped]
import grpc
import pytest
from prometheus_client import CollectorRegistry

from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.wallet.adapters.audit import audit_ledger
from croupier.wallet.adapters.metrics import PrometheusWalletMetrics
from croupier.wallet.adapters.postgres import PostgresUnitOfWork, create_pool
from croupier.wallet.bootstrap import build_wallet, migrate_ledger
from croupier.wallet.service.ledger import LedgerService


@pytest.fixture(scope="session")
def wallet_dsn(postgres_dsn: str) -> str:
    return postgres_dsn


class SteppingClock:
    """A deterministic clock: each reading is one second after the previous one."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@pytest.fixture
def clock() -> SteppingClock:
    return SteppingClock(datetime(2026, 11, 29, 12, 0, tzinfo=UTC))


@pytest.fixture
async def wallet_pool(
    wallet_dsn: str, unique: Callable[[str], str]
) -> AsyncIterator[tuple[asyncpg.Pool, str]]:
    schema = unique("wallet")
    connection = await asyncpg.connect(wallet_dsn)
    try:
        await migrate_ledger(connection, schema)
    finally:
        await connection.close()
    pool = await create_pool(wallet_dsn, schema, min_size=1, max_size=20)
    try:
        yield pool, schema
        # Every scenario ends with balanced books (docs/architecture.md §4 invariants).
        async with pool.acquire() as connection:
            report = await audit_ledger(connection)
        assert report.ok, f"ledger invariants broken after the test: {report}"
    finally:
        await pool.close()
        connection = await asyncpg.connect(wallet_dsn)
        try:
            await connection.execute(f'DROP SCHEMA "{schema}" CASCADE')
        finally:
            await connection.close()


@pytest.fixture
def metrics() -> PrometheusWalletMetrics:
    return PrometheusWalletMetrics(CollectorRegistry())


@pytest.fixture
def ledger_service(
    wallet_pool: tuple[asyncpg.Pool, str], clock: SteppingClock, metrics: PrometheusWalletMetrics
) -> LedgerService:
    pool, _ = wallet_pool
    return LedgerService(
        unit_of_work=PostgresUnitOfWork.factory(pool), clock=clock, metrics=metrics
    )


@pytest.fixture
async def wallet_channel(
    wallet_pool: tuple[asyncpg.Pool, str], clock: SteppingClock
) -> AsyncIterator[grpc.aio.Channel]:
    """A channel to the Wallet gRPC service on the test's schema (no bus: PostgreSQL-only
    methods), served on a free port and stopped after the test. Requests up to 8 MiB may
    be sent, so tests can send absurdly large values."""
    pool, schema = wallet_pool
    wallet = await build_wallet(
        pool=pool,
        schema=schema,
        bus=None,
        registry=CollectorRegistry(),
        clock=clock,  # type: ignore[arg-type]
    )
    settings = ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0)
    host = ServiceHost(settings=settings, services=[wallet.service()], serve_metrics_endpoint=False)
    await host.start()
    options = [("grpc.max_send_message_length", 8 << 20)]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{host.port}", options=options) as channel:
        yield channel
    await host.stop()


class Sink:
    """A dead-letter publisher for the wallet's request handler: keeps every message sent
    (topic, value, headers)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes | None, dict[str, bytes]]] = []

    async def publish_raw(self, topic: str, *, key: bytes | None, value: bytes | None,
                          headers: Sequence[tuple[str, bytes]] = ()) -> None:  # fmt: skip
        self.sent.append((topic, value, dict(headers)))
