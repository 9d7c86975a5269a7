"""`start_relaying` on the real PostgreSQL: a relay it started never outlives a failed or
stopped start (the lobby once left one running when stopped while joining its consumer)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg  # type: ignore[import-untyped]
import pytest

from croupier.kit.bus import Envelope, InMemoryBus, Subscription
from croupier.kit.outbox import Outbox
from croupier.kit.tasks import cancel
from croupier.kit.wiring import start_relaying

POOL_SIZE = 2  # the relay's listener holds one connection while it runs


@pytest.fixture
async def pool(postgres_dsn: str, postgres_schema: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await asyncpg.create_pool(postgres_dsn, min_size=1, max_size=POOL_SIZE)
    async with pool.acquire() as connection:
        await Outbox(schema=postgres_schema).create_table(connection)
    yield pool
    await pool.close()


async def assert_no_relay_holds_a_connection(pool: asyncpg.Pool) -> None:
    async with asyncio.timeout(5):
        connections = [await pool.acquire() for _ in range(POOL_SIZE)]
    for connection in connections:
        await pool.release(connection)


async def ignore(envelope: Envelope) -> None:
    del envelope


async def test_relaying_starts_the_bus_and_stops_consumer_then_relay(
    pool: asyncpg.Pool, postgres_schema: str
) -> None:
    bus = InMemoryBus()

    async def subscribe() -> Subscription:
        return await bus.subscribe("topic", group="g", handler=ignore, max_attempts=None)

    relaying = await start_relaying(bus, pool=pool, schema=postgres_schema, subscribe=subscribe)
    assert relaying.subscription is not None
    assert relaying.stop_hooks() == [relaying.subscription.stop, relaying.relay.stop]
    for hook in relaying.stop_hooks():
        await hook()
    await bus.stop()
    await assert_no_relay_holds_a_connection(pool)


async def test_a_consumer_that_cannot_join_stops_the_relay(
    pool: asyncpg.Pool, postgres_schema: str
) -> None:
    async def subscribe() -> Subscription:
        raise ConnectionError("the group coordinator is not available")

    with pytest.raises(ConnectionError):
        await start_relaying(InMemoryBus(), pool=pool, schema=postgres_schema, subscribe=subscribe)
    await assert_no_relay_holds_a_connection(pool)


async def test_a_stop_while_joining_the_consumer_stops_the_relay(
    pool: asyncpg.Pool, postgres_schema: str
) -> None:
    joining = asyncio.Event()

    async def subscribe() -> Subscription:
        joining.set()
        await asyncio.Event().wait()  # a broker that never answers
        raise AssertionError("unreachable")

    task = asyncio.create_task(
        start_relaying(InMemoryBus(), pool=pool, schema=postgres_schema, subscribe=subscribe)
    )
    async with asyncio.timeout(5):
        await joining.wait()
    await cancel(task)
    assert task.cancelled()
    await assert_no_relay_holds_a_connection(pool)
