"""The kit's operational metrics against the real broker and PostgreSQL: consumer lag and
rebalances, dead letters, producer delivery failures and the outbox backlog (what the
alerts of deploy/prometheus/ watch)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import asyncpg  # type: ignore[import-untyped]
import confluent_kafka
import pytest
from google.protobuf import wrappers_pb2
from prometheus_client import REGISTRY

from croupier.kit.bus import Envelope, KafkaBus, make_envelope
from croupier.kit.kafka_producer import AckedProducer
from croupier.kit.outbox import Outbox, OutboxRelay

NOBODY = "127.0.0.1:1"  # a port nothing listens on


def envelope(subject: str, sequence: int) -> Envelope:
    return make_envelope(
        type="test.happened",
        source="tests",
        subject=subject,
        sequence=sequence,
        payload=wrappers_pb2.Int64Value(value=sequence),
    )


def sample(name: str, **labels: str) -> float | None:
    return REGISTRY.get_sample_value(name, labels)


async def until(condition: Callable[[], bool], within: float = 60.0) -> None:
    async with asyncio.timeout(within):
        while not condition():  # noqa: ASYNC110 - polling a plain condition is the point
            await asyncio.sleep(0.05)


async def test_consumer_lag_rises_while_the_handler_is_held_and_falls_to_zero_after(
    kafka_bootstrap: str, unique: Callable[[str], str]
) -> None:
    topic, group = unique("lag"), unique("group")
    release = asyncio.Event()
    handled: list[int] = []

    async def handler(item: Envelope) -> None:
        await release.wait()
        handled.append(item.sequence)

    def lag() -> float | None:
        return sample("croupier_kafka_consumer_lag", group=group, topic=topic, partition="0")

    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        await bus.create_topics([topic], partitions=1)
        await bus.publish_many([(topic, envelope("s", n)) for n in range(1, 6)])
        await bus.subscribe(topic, group=group, handler=handler)
        # The first message is in the handler's hands, none handled: all five are behind.
        # (The group's first join, on a loaded machine, has taken over 30 s alone.)
        await until(lambda: lag() == 5, within=90)
        assert sample("croupier_kafka_consumer_rebalances_total", group=group, topic=topic) == 1
        release.set()
        await until(lambda: len(handled) == 5)
        await bus.publish(topic, envelope("s", 6))
        await until(lambda: len(handled) == 6 and lag() == 0)
    # The stopped member gave its partition back: its lag is no longer reported.
    assert lag() is None


async def test_every_dead_letter_is_counted_under_its_group_and_topic(
    kafka_bootstrap: str, unique: Callable[[str], str]
) -> None:
    topic, group = unique("dlq"), unique("group")
    handled: list[int] = []

    async def handler(item: Envelope) -> None:
        handled.append(item.sequence)

    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        await bus.create_topics([topic], partitions=1)
        await bus.publish_raw(topic, key=b"s", value=b"\xff not an envelope")
        await bus.publish_raw(topic, key=b"s", value=b"\xff nor this")
        await bus.publish(topic, envelope("s", 1))
        await bus.subscribe(topic, group=group, handler=handler)
        await until(lambda: handled == [1])
    assert sample("croupier_kafka_dead_lettered_total", group=group, topic=topic) == 2


async def test_a_record_the_producer_gives_up_on_is_counted_under_its_topic(
    unique: Callable[[str], str],
) -> None:
    topic = unique("undeliverable")
    producer = AckedProducer(NOBODY, {"message.timeout.ms": 1000})
    try:
        with pytest.raises(confluent_kafka.KafkaException):
            async with asyncio.timeout(15):
                await producer.send(topic, b"k", b"v")
    finally:
        await producer.close()
    assert sample("croupier_kafka_producer_delivery_failures_total", topic=topic) == 1


@pytest.fixture
async def pool(postgres_dsn: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await asyncpg.create_pool(postgres_dsn, min_size=1, max_size=4)
    yield pool
    await pool.close()


async def test_outbox_backlog_counts_the_rows_waiting_and_the_oldest_ones_age(
    pool: asyncpg.Pool, postgres_schema: str, kafka_bootstrap: str, unique: Callable[[str], str]
) -> None:
    outbox = Outbox(schema=postgres_schema)
    topic = unique("outbox")
    async with pool.acquire() as connection:
        await outbox.create_table(connection)
        async with connection.transaction():
            for n in range(1, 4):
                await outbox.add(connection, topic, envelope("s", n))
    await asyncio.sleep(0.2)  # the oldest row is this old at least

    def backlog() -> tuple[float | None, float | None]:
        return (
            sample("croupier_outbox_backlog", schema=postgres_schema),
            sample("croupier_outbox_oldest_unpublished_seconds", schema=postgres_schema),
        )

    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        await bus.create_topics([topic], partitions=1)
        waiting = OutboxRelay(pool=pool, outbox=outbox, bus=bus)
        await waiting.measure_now_and_then()  # not started: nothing published yet
        count, oldest = backlog()
        assert count == 3 and oldest is not None and oldest >= 0.2
        async with OutboxRelay(pool=pool, outbox=outbox, bus=bus):
            await until(lambda: backlog() == (0, 0))
