"""PostgresDeduplicator on the real PostgreSQL: the claim commits or rolls back with the effect."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg  # type: ignore[import-untyped]
import pytest

from croupier.kit.bus import PostgresDeduplicator


@pytest.fixture
async def pool(postgres_dsn: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await asyncpg.create_pool(postgres_dsn, min_size=1, max_size=3)
    yield pool
    await pool.close()


@pytest.fixture
async def dedup(pool: asyncpg.Pool, postgres_schema: str) -> PostgresDeduplicator:
    deduplicator = PostgresDeduplicator(pool, schema=postgres_schema)
    await deduplicator.create_table()
    await deduplicator.create_table()  # idempotent
    return deduplicator


async def test_claim_is_true_once_per_consumer(
    pool: asyncpg.Pool, dedup: PostgresDeduplicator
) -> None:
    async with pool.acquire() as connection:
        async with connection.transaction():
            assert await dedup.claim(connection, "wallet", "id-1")
        async with connection.transaction():
            assert not await dedup.claim(connection, "wallet", "id-1")
            assert await dedup.claim(connection, "lobby", "id-1")
    assert await dedup.seen("wallet", "id-1")


async def test_a_rolled_back_claim_leaves_the_envelope_unprocessed(
    pool: asyncpg.Pool, dedup: PostgresDeduplicator
) -> None:
    async with pool.acquire() as connection:
        with pytest.raises(ZeroDivisionError):
            async with connection.transaction():
                assert await dedup.claim(connection, "wallet", "id-2")
                _ = 1 / 0  # the handler's effect failed
        assert not await dedup.seen("wallet", "id-2")
        async with connection.transaction():
            assert await dedup.claim(connection, "wallet", "id-2"), "the redelivery is handled"


async def test_claim_outside_a_transaction_is_refused(
    pool: asyncpg.Pool, dedup: PostgresDeduplicator
) -> None:
    async with pool.acquire() as connection:
        with pytest.raises(RuntimeError, match="inside the handler's transaction"):
            await dedup.claim(connection, "wallet", "id-3")


async def test_seen_and_remember_outside_a_handler_transaction(dedup: PostgresDeduplicator) -> None:
    assert not await dedup.seen("wallet", "id-4")
    await dedup.remember("wallet", "id-4")
    await dedup.remember("wallet", "id-4")
    assert await dedup.seen("wallet", "id-4")
    assert not await dedup.seen("lobby", "id-4")


def test_schema_names_are_checked_before_they_reach_sql() -> None:
    with pytest.raises(ValueError, match="identifier"):
        PostgresDeduplicator(None, schema='x"; DROP TABLE y; --')
