"""Shared fixtures: the real Kafka broker and PostgreSQL, and unique names per test.

The integration fixtures read the addresses that `deploy/local/with-infra.sh` exports (it starts
the services if they are not running). Without them a test that needs them FAILS: a missing
broker or database must never turn into a silently skipped test.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

_HOW_TO_RUN = "run the suite with `make test` or `deploy/local/with-infra.sh .venv/bin/pytest ...`"


async def create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    """Create `topic` on the test broker with `partitions` partitions (one replica)."""
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(topic, partitions, 1)])
    finally:
        await admin.close()


def unique_name(prefix: str) -> str:
    """`prefix` + a random suffix, usable as a topic, group id, schema or table name.

    Lower case letters, digits and underscores only, so it is also a plain SQL identifier.
    Tests share one broker and one database, so each makes its own names with this.
    """
    return f"{prefix}_{uuid.uuid4().hex[:12]}".lower()


@pytest.fixture
def unique() -> Callable[[str], str]:
    """The `unique_name` function, for tests that need several names."""
    return unique_name


@pytest.fixture(scope="session")
def kafka_bootstrap() -> str:
    """Bootstrap address of the real Kafka broker (CROUPIER_KAFKA_BOOTSTRAP)."""
    value = os.environ.get("CROUPIER_KAFKA_BOOTSTRAP", "").strip()
    if not value:
        pytest.fail(f"CROUPIER_KAFKA_BOOTSTRAP is not set: {_HOW_TO_RUN}", pytrace=False)
    return value


@pytest.fixture(scope="session")
def postgres_dsn() -> str:
    """DSN of the real PostgreSQL (CROUPIER_POSTGRES_DSN)."""
    value = os.environ.get("CROUPIER_POSTGRES_DSN", "").strip()
    if not value:
        pytest.fail(f"CROUPIER_POSTGRES_DSN is not set: {_HOW_TO_RUN}", pytrace=False)
    return value


@pytest.fixture
async def postgres_schema(postgres_dsn: str) -> AsyncIterator[str]:
    """A fresh, empty schema of its own for this test (dropped afterwards)."""
    import asyncpg  # type: ignore[import-untyped]

    schema = unique_name("test")
    connection = await asyncpg.connect(postgres_dsn)
    try:
        await connection.execute(f'CREATE SCHEMA "{schema}"')
        yield schema
        await connection.execute(f'DROP SCHEMA "{schema}" CASCADE')
    finally:
        await connection.close()


async def topic_partitions(kafka_bootstrap: str, topic: str) -> list[Any]:
    """`topic`'s partitions (aiokafka `TopicPartition`s) as the broker describes them."""
    from aiokafka import TopicPartition
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    await admin.start()
    try:
        (description,) = await admin.describe_topics([topic])
    finally:
        await admin.close()
    return [TopicPartition(topic, p["partition"]) for p in description["partitions"]]


async def start_group_at_end(kafka_bootstrap: str, topic: str, group: str) -> None:
    """Commit `group`'s position at the end of `topic`: the broker is shared, and a new
    group would otherwise read every table event other tests ever published first (a
    topic not made yet has no history to skip). The partitions come from the admin
    client: a consumer's `topics()` leaves `partitions_for_topic` empty."""
    from aiokafka import AIOKafkaConsumer

    partitions = await topic_partitions(kafka_bootstrap, topic)
    if not partitions:
        return
    consumer = AIOKafkaConsumer(
        bootstrap_servers=kafka_bootstrap, group_id=group, enable_auto_commit=False
    )
    await consumer.start()
    try:
        consumer.assign(partitions)
        await consumer.commit(dict(await consumer.end_offsets(partitions)))
        committed = [await consumer.committed(partition) for partition in partitions]
        assert None not in committed, f"{group} was not placed at the end of {topic}"
    finally:
        await consumer.stop()


async def closed_within(pool: Any, seconds: float = 30.0) -> bool:
    """Close an asyncpg pool, waiting at most `seconds` for its connections to come back;
    False (the pool terminated) when one never did: `close()` alone would wait for ever."""
    try:
        await asyncio.wait_for(pool.close(), seconds)
    except TimeoutError:
        pool.terminate()
        return False
    return True
