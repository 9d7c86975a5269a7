"""The Kafka event bus against the real broker (and PostgreSQL for the crash test)."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Awaitable, Callable

import asyncpg  # type: ignore[import-untyped]
import pytest
from aiokafka import AIOKafkaConsumer
from google.protobuf import wrappers_pb2

from croupier.kit.bus import (
    DLQ_REASON_HEADER,
    TYPE_HEADER,
    Envelope,
    InMemoryDeduplicator,
    KafkaBus,
    SubjectSequencer,
    dead_letter_topic,
    make_envelope,
)
from croupier.kit.bus.kafka import KafkaUnreachable
from tests.support.infra import topic_partitions


def envelope(subject: str, sequence: int, amount: int = 0) -> Envelope:
    return make_envelope(
        type="test.happened",
        source="tests",
        subject=subject,
        sequence=sequence,
        payload=wrappers_pb2.Int64Value(value=amount),
    )


def sequences_into(received: list[int]) -> Callable[[Envelope], Awaitable[None]]:
    """A handler that notes each envelope's sequence number in `received`."""

    async def handler(item: Envelope) -> None:
        received.append(item.sequence)

    return handler


async def until(condition: Callable[[], bool], within: float = 60.0) -> None:
    # Generous: a group's first join waits on the broker's coordinator, which a loaded CI
    # machine (two cores, the whole suite before) has been seen to take over 30 s for.
    async with asyncio.timeout(within):
        while not condition():  # noqa: ASYNC110 - polling a plain condition is the point
            await asyncio.sleep(0.02)


async def read_all(bootstrap: str, topic: str) -> list[object]:
    """Every record of `topic` from the beginning to its current end (no consumer group)."""
    partitions = await topic_partitions(bootstrap, topic)
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, auto_offset_reset="earliest"
    )
    await consumer.start()
    try:
        consumer.assign(partitions)
        end = await consumer.end_offsets(partitions)
        done = {p: 0 for p in partitions}  # next offset still to read, per partition
        records: list[object] = []
        async with asyncio.timeout(90):
            while any(done[p] < end[p] for p in partitions):
                for partition, batch in (await consumer.getmany(timeout_ms=200)).items():
                    records.extend(batch)
                    done[partition] = batch[-1].offset + 1
        return records
    finally:
        await consumer.stop()


async def committed_total(bootstrap: str, topic: str, group: str) -> int:
    """The sum over partitions of `group`'s committed offsets (messages it has finished)."""
    partitions = await topic_partitions(bootstrap, topic)
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False
    )
    await consumer.start()
    try:
        total = 0
        for partition in partitions:
            offset = await consumer.committed(partition)
            total += offset or 0
        return total
    finally:
        await consumer.stop()


async def test_envelope_is_consumed_once_per_consumer_group(
    kafka_bootstrap: str, unique: Callable[[str], str]
) -> None:
    topic, group_a, group_b = unique("bus"), unique("group_a"), unique("group_b")
    received: dict[str, list[Envelope]] = {group_a: [], group_b: []}

    def collect(group: str) -> Callable[[Envelope], object]:
        async def handler(item: Envelope) -> None:
            received[group].append(item)

        return handler

    sequencer = SubjectSequencer()
    subjects = [f"table-{n % 4}" for n in range(20)]
    sent = [envelope(subject, sequencer.next(subject)) for subject in subjects]
    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        await bus.create_topics([topic], partitions=3)
        await bus.publish_many([(topic, item) for item in sent[:19]])
        await bus.publish(topic, sent[19])
        for group in (group_a, group_b):
            await bus.subscribe(topic, group=group, handler=collect(group))  # type: ignore[arg-type]
        await until(lambda: all(len(items) >= 20 for items in received.values()))
        await asyncio.sleep(0.5)  # room for a duplicate to show up
    for group, items in received.items():
        assert sorted(e.id for e in items) == sorted(e.id for e in sent), group
        for subject in {e.subject for e in sent}:
            assert [e.sequence for e in items if e.subject == subject] == [1, 2, 3, 4, 5]

    # A new member of group A resumes after the committed offsets: only the new message arrives.
    later = envelope("table-0", 6)
    again: list[str] = []

    async def remember(item: Envelope) -> None:
        again.append(item.id)

    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        await bus.subscribe(topic, group=group_a, handler=remember)
        await bus.publish(topic, later)
        await until(lambda: later.id in again)
        await asyncio.sleep(0.5)
    assert again == [later.id]


async def test_undecodable_message_goes_to_the_dlq_and_the_partition_moves_on(
    kafka_bootstrap: str, unique: Callable[[str], str]
) -> None:
    topic, group = unique("bus"), unique("group")
    garbage = b"\xff\x00 definitely not an envelope"
    received: list[int] = []
    handler = sequences_into(received)

    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        await bus.create_topics([topic], partitions=1)
        await bus.publish(topic, envelope("s", 1))
        await bus.publish_raw(topic, key=b"s", value=garbage)
        await bus.publish(topic, envelope("s", 2))
        await bus.publish(topic, envelope("s", 3))
        await bus.subscribe(topic, group=group, handler=handler)
        await until(lambda: len(received) >= 3)
        await asyncio.sleep(0.3)
        await bus.stop()
        await bus.stop()  # safe twice
    assert received == [1, 2, 3]
    dead = await read_all(kafka_bootstrap, dead_letter_topic(topic))
    assert len(dead) == 1
    record = dead[0]
    assert record.value == garbage  # type: ignore[attr-defined]
    headers = dict(record.headers)  # type: ignore[attr-defined]
    assert headers[DLQ_REASON_HEADER].startswith(b"not a protobuf Envelope")
    assert headers["croupier-dlq-position"] == b"partition 0 offset 1"
    # The dead-lettered message was committed like the others: a restart will not see it again.
    assert await committed_total(kafka_bootstrap, topic, group) == 4


async def test_a_subscription_for_some_types_is_handed_only_those_and_commits_the_rest(
    kafka_bootstrap: str, unique: Callable[[str], str]
) -> None:
    topic, group = unique("bus"), unique("group")
    received: list[int] = []
    handler = sequences_into(received)

    def typed(kind: str, sequence: int) -> Envelope:
        return make_envelope(
            type=kind,
            source="tests",
            subject="s",
            sequence=sequence,
            payload=wrappers_pb2.Int64Value(),
        )

    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        await bus.create_topics([topic], partitions=1)
        await bus.publish_many(
            [(topic, typed("t.wanted" if n % 3 == 0 else "t.other", n)) for n in range(1, 10)]
        )
        # Typed as one not taken: passed over undecoded, so not dead-lettered either.
        await bus.publish_raw(
            topic, key=b"s", value=b"\xff not an envelope", headers=[(TYPE_HEADER, b"t.other")]
        )
        await bus.publish(topic, typed("t.wanted", 10))
        await bus.subscribe(topic, group=group, handler=handler, types={"t.wanted"})
        await until(lambda: len(received) >= 4)
        # Each commit follows its message's handling: wait for the last one (a fixed 0.3 s
        # was too short on the loaded CI machine) before stopping the consumer.
        async with asyncio.timeout(90):
            while await committed_total(kafka_bootstrap, topic, group) < 11:  # noqa: ASYNC110 - polling the broker is the point
                await asyncio.sleep(0.1)
    assert received == [3, 6, 9, 10]
    # Every message is finished, those passed over too: a restart reads none again.
    assert await committed_total(kafka_bootstrap, topic, group) == 11


class FlakyDeduplicator(InMemoryDeduplicator):
    """Its store is unreachable for the first `failures` look-ups."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures

    async def seen(self, consumer: str, envelope_id: str) -> bool:
        if self.failures:
            self.failures -= 1
            raise ConnectionError("deduplication store unreachable")
        return await super().seen(consumer, envelope_id)


async def test_consumer_survives_a_failing_deduplicator_and_skips_nothing(
    kafka_bootstrap: str, unique: Callable[[str], str]
) -> None:
    topic, group = unique("bus"), unique("group")
    received: list[int] = []
    handler = sequences_into(received)

    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        await bus.create_topics([topic], partitions=1)
        await bus.publish_many([(topic, envelope("s", n)) for n in (1, 2, 3)])
        await bus.subscribe(
            topic, group=group, handler=handler, deduplicator=FlakyDeduplicator(failures=2)
        )
        await until(lambda: len(received) >= 3)
        await asyncio.sleep(0.3)
    assert received == [1, 2, 3]


# A consumer process that applies each envelope's amount to a balance in PostgreSQL, deduplicating
# by envelope id inside the same transaction (PostgresDeduplicator.claim). Duplicates it skips are
# recorded. Run as: python -c CHILD bootstrap dsn schema topic group
CHILD = """
import asyncio, sys
import asyncpg
from google.protobuf import wrappers_pb2
from croupier.kit.bus import KafkaBus, PostgresDeduplicator

async def main(bootstrap, dsn, schema, topic, group):
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=2)
    dedup = PostgresDeduplicator(pool, schema=schema)

    async def handler(envelope):
        amount = wrappers_pb2.Int64Value()
        envelope.payload.Unpack(amount)
        async with pool.acquire() as connection, connection.transaction():
            if await dedup.claim(connection, group, envelope.id):
                await connection.execute(
                    f'UPDATE "{schema}".balance SET total = total + $1', amount.value)
                await connection.execute(
                    f'INSERT INTO "{schema}".applied (envelope_id) VALUES ($1)', envelope.id)
            else:
                await connection.execute(
                    f'INSERT INTO "{schema}".duplicates (envelope_id) VALUES ($1)', envelope.id)
        await asyncio.sleep(0.005)

    options = {"session_timeout_ms": 6000, "heartbeat_interval_ms": 500}
    async with KafkaBus(bootstrap_servers=bootstrap, consumer_options=options) as bus:
        await bus.subscribe(topic, group=group, handler=handler)
        await asyncio.Event().wait()

asyncio.run(main(*sys.argv[1:]))
"""


async def test_consumer_killed_mid_stream_loses_nothing_and_applies_nothing_twice(
    kafka_bootstrap: str, postgres_dsn: str, postgres_schema: str, unique: Callable[[str], str]
) -> None:
    """SIGKILL a consumer halfway; its successor in the same group finishes the stream.

    Whatever the killed consumer had applied but not yet committed to Kafka is redelivered, and
    the PostgreSQL deduplicator (claimed in the handler's transaction) skips exactly those.
    """
    topic, group, schema = unique("bus"), unique("group"), postgres_schema
    count = 300
    amounts = [n * 7 % 101 + 1 for n in range(count)]
    connection = await asyncpg.connect(postgres_dsn)
    try:
        await connection.execute(
            f'CREATE TABLE "{schema}".balance (total bigint NOT NULL);'
            f'INSERT INTO "{schema}".balance VALUES (0);'
            f'CREATE TABLE "{schema}".applied (envelope_id text NOT NULL);'
            f'CREATE TABLE "{schema}".duplicates (envelope_id text NOT NULL);'
        )
        pool = await asyncpg.create_pool(postgres_dsn, min_size=1, max_size=1)
        from croupier.kit.bus import PostgresDeduplicator

        await PostgresDeduplicator(pool, schema=schema).create_table()
        await pool.close()

        async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
            await bus.create_topics([topic], partitions=4)
            await bus.publish_many(
                [
                    (topic, envelope(f"account-{n % 10}", n // 10 + 1, amounts[n]))
                    for n in range(count)
                ]
            )

        async def applied() -> int:
            value: int = await connection.fetchval(f'SELECT count(*) FROM "{schema}".applied')
            return value

        arguments = [kafka_bootstrap, postgres_dsn, schema, topic, group]
        # Each child starts a Python process and joins the group (the second after the killed
        # member's session expires): generous bounds, as the loaded CI machine has needed
        # more than 40 s for the two together.
        first = await asyncio.create_subprocess_exec(sys.executable, "-c", CHILD, *arguments)
        try:
            async with asyncio.timeout(120):
                while await applied() < count // 3:  # noqa: ASYNC110 - polling the database
                    await asyncio.sleep(0.02)
        finally:
            first.send_signal(signal.SIGKILL)
            await first.wait()
        applied_by_first = await applied()
        committed_by_first = await committed_total(kafka_bootstrap, topic, group)
        assert 0 < applied_by_first < count
        assert committed_by_first <= applied_by_first

        second = await asyncio.create_subprocess_exec(sys.executable, "-c", CHILD, *arguments)
        try:
            async with asyncio.timeout(120):
                while await applied() < count:  # noqa: ASYNC110 - polling the database
                    await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)  # room for a late double application to show up
        finally:
            second.send_signal(signal.SIGKILL)
            await second.wait()

        total = await connection.fetchval(f'SELECT total FROM "{schema}".balance')
        distinct = await connection.fetchval(
            f'SELECT count(DISTINCT envelope_id) FROM "{schema}".applied'
        )
        duplicates = await connection.fetchval(f'SELECT count(*) FROM "{schema}".duplicates')
    finally:
        await connection.close()
    assert distinct == count, "every envelope applied, none twice"
    assert total == sum(amounts), "the balance saw each amount exactly once"
    # Exactly the applied-but-uncommitted messages came back, and each was recognised.
    assert duplicates == applied_by_first - committed_by_first, (
        f"{applied_by_first=} {committed_by_first=} {duplicates=}"
    )


async def test_start_fails_when_the_broker_cannot_be_reached() -> None:
    bus = KafkaBus(bootstrap_servers="127.0.0.1:9", connect_timeout_seconds=1.0)
    with pytest.raises(KafkaUnreachable, match=r"cannot reach Kafka at 127\.0\.0\.1:9: "):
        await bus.start()
    with pytest.raises(RuntimeError, match="the bus is not running"):
        await bus.publish("croupier.tests", envelope("s", 1))
