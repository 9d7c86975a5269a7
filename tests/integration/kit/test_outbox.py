"""The transactional outbox on the real PostgreSQL, relayed to the real Kafka broker."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence

import asyncpg  # type: ignore[import-untyped]
import pytest
from aiokafka import AIOKafkaConsumer
from google.protobuf import wrappers_pb2

from croupier.kit.bus import (
    Envelope,
    InMemoryBus,
    InMemoryDeduplicator,
    KafkaBus,
    decode_envelope,
    make_envelope,
)
from croupier.kit.outbox import Outbox, OutboxError, OutboxRelay
from tests.support.infra import closed_within, topic_partitions


def envelope(subject: str, sequence: int) -> Envelope:
    return make_envelope(
        type="seat.taken",
        source="tests",
        subject=subject,
        sequence=sequence,
        payload=wrappers_pb2.StringValue(value=f"{subject}#{sequence}"),
    )


@pytest.fixture
async def pool(postgres_dsn: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await asyncpg.create_pool(postgres_dsn, min_size=1, max_size=6)
    yield pool
    # A connection never given back fails the test (a test below looks for one).
    assert await closed_within(pool), "a connection was never given back to the pool"


@pytest.fixture
async def outbox(pool: asyncpg.Pool, postgres_schema: str) -> Outbox:
    outbox = Outbox(schema=postgres_schema)
    async with pool.acquire() as connection:
        await outbox.create_table(connection)
        await outbox.create_table(connection)  # idempotent
        await connection.execute(
            f'CREATE TABLE "{postgres_schema}".seats (table_id text, seat int, player text)'
        )
    return outbox


async def topic_contents(bootstrap: str, topic: str) -> list[Envelope]:
    """Every envelope on `topic`, from the beginning to its current end, partition by partition."""
    partitions = await topic_partitions(bootstrap, topic)
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, auto_offset_reset="earliest"
    )
    await consumer.start()
    try:
        consumer.assign(partitions)
        end = await consumer.end_offsets(partitions)
        done = {p: 0 for p in partitions}
        found: list[Envelope] = []
        async with asyncio.timeout(30):
            while any(done[p] < end[p] for p in partitions):
                for partition, batch in (await consumer.getmany(timeout_ms=200)).items():
                    found.extend(decode_envelope(record.value) for record in batch)
                    done[partition] = batch[-1].offset + 1
        return found
    finally:
        await consumer.stop()


async def take_seat(
    pool: asyncpg.Pool, outbox: Outbox, topic: str, item: Envelope, *, fail: bool = False
) -> None:
    """A state change and its event in one transaction (optionally failing after both)."""
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute(
            f'INSERT INTO "{outbox.schema}".seats VALUES ($1, $2, $3)',
            item.subject,
            item.sequence,
            "alice",
        )
        await outbox.add(connection, topic, item)
        if fail:
            raise RuntimeError("the handler failed after writing")


async def test_state_change_and_its_event_commit_together(
    kafka_bootstrap: str, pool: asyncpg.Pool, outbox: Outbox, unique: Callable[[str], str]
) -> None:
    topic = unique("outbox")
    item = envelope("table-1", 1)
    await take_seat(pool, outbox, topic, item)
    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        await bus.create_topics([topic], partitions=2)
        received: list[Envelope] = []

        async def handler(got: Envelope) -> None:
            received.append(got)

        await bus.subscribe(topic, group=unique("group"), handler=handler)
        async with OutboxRelay(pool=pool, outbox=outbox, bus=bus, poll_interval_seconds=0.1):
            async with asyncio.timeout(30):
                while not received:  # noqa: ASYNC110 - waiting for the consumer
                    await asyncio.sleep(0.02)
    assert received == [item]
    async with pool.acquire() as connection:
        seats = await connection.fetch(f'SELECT * FROM "{outbox.schema}".seats')
        assert [tuple(row) for row in seats] == [("table-1", 1, "alice")]
        assert await outbox.unpublished(connection) == 0


async def test_rolled_back_change_publishes_nothing(
    kafka_bootstrap: str, pool: asyncpg.Pool, outbox: Outbox, unique: Callable[[str], str]
) -> None:
    topic = unique("outbox")
    doomed, kept = envelope("table-1", 1), envelope("table-1", 2)
    with pytest.raises(RuntimeError, match="failed after writing"):
        await take_seat(pool, outbox, topic, doomed, fail=True)
    await take_seat(pool, outbox, topic, kept)
    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        await bus.create_topics([topic], partitions=1)
        relay = OutboxRelay(pool=pool, outbox=outbox, bus=bus)
        assert await relay.relay_once() == 1
        assert await relay.relay_once() == 0
    assert [e.id for e in await topic_contents(kafka_bootstrap, topic)] == [kept.id]
    async with pool.acquire() as connection:
        assert await connection.fetchval(f'SELECT count(*) FROM "{outbox.schema}".seats') == 1


async def test_add_outside_a_transaction_is_refused(pool: asyncpg.Pool, outbox: Outbox) -> None:
    async with pool.acquire() as connection:
        with pytest.raises(OutboxError, match="inside the transaction"):
            await outbox.add(connection, "croupier.table.events", envelope("t", 1))


async def test_relay_publishes_each_row_exactly_once_across_a_restart(
    kafka_bootstrap: str, pool: asyncpg.Pool, outbox: Outbox, unique: Callable[[str], str]
) -> None:
    topic = unique("outbox")
    items = [envelope(f"table-{n % 3}", n // 3 + 1) for n in range(45)]
    for item in items:
        await take_seat(pool, outbox, topic, item)
    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        await bus.create_topics([topic], partitions=3)
        first = OutboxRelay(pool=pool, outbox=outbox, bus=bus, batch_size=10)
        assert await first.relay_once() == 10
        # A relay service restarted: a new relay, running in the background, finishes the job.
        async with OutboxRelay(pool=pool, outbox=outbox, bus=bus, batch_size=10) as second:
            async with asyncio.timeout(30):
                while await _unpublished(pool, outbox):  # noqa: ASYNC110 - waiting for the relay
                    await asyncio.sleep(0.05)
            del second
    on_topic = await topic_contents(kafka_bootstrap, topic)
    assert sorted(e.id for e in on_topic) == sorted(e.id for e in items)  # each exactly once
    for subject in {e.subject for e in items}:
        sequences = [e.sequence for e in on_topic if e.subject == subject]
        assert sequences == list(range(1, 16)), "a subject's events keep their order"


async def test_two_relays_at_once_publish_each_row_once(
    kafka_bootstrap: str, pool: asyncpg.Pool, outbox: Outbox, unique: Callable[[str], str]
) -> None:
    topic = unique("outbox")
    items = [envelope(f"table-{n % 5}", n // 5 + 1) for n in range(60)]
    for item in items:
        await take_seat(pool, outbox, topic, item)
    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        await bus.create_topics([topic], partitions=2)
        relays = [OutboxRelay(pool=pool, outbox=outbox, bus=bus, batch_size=7) for _ in range(2)]

        async def drain(relay: OutboxRelay) -> None:
            while await _unpublished(pool, outbox):
                await relay.relay_once()

        await asyncio.gather(*(drain(relay) for relay in relays))
    on_topic = await topic_contents(kafka_bootstrap, topic)
    assert sorted(e.id for e in on_topic) == sorted(e.id for e in items)
    for subject in {e.subject for e in items}:
        assert [e.sequence for e in on_topic if e.subject == subject] == list(range(1, 13))


class CrashAfterPublish:
    """A bus that publishes for real and then "dies" before the relay can mark the rows."""

    def __init__(self, bus: KafkaBus) -> None:
        self.bus = bus

    async def publish_many(self, messages: Sequence[tuple[str, Envelope]]) -> None:
        await self.bus.publish_many(messages)
        raise ConnectionResetError("relay process killed after the broker acknowledged")


async def test_crash_between_publish_and_mark_republishes_the_same_ids_and_dedup_absorbs_them(
    kafka_bootstrap: str, pool: asyncpg.Pool, outbox: Outbox, unique: Callable[[str], str]
) -> None:
    topic = unique("outbox")
    items = [envelope("table-9", n) for n in range(1, 9)]
    for item in items:
        await take_seat(pool, outbox, topic, item)
    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        await bus.create_topics([topic], partitions=1)
        crashing = OutboxRelay(
            pool=pool,
            outbox=outbox,
            bus=CrashAfterPublish(bus),  # type: ignore[arg-type]
            batch_size=5,
        )
        with pytest.raises(ConnectionResetError):
            await crashing.relay_once()
        assert await _unpublished(pool, outbox) == 8, "the crashed batch is not marked"
        restarted = OutboxRelay(pool=pool, outbox=outbox, bus=bus, batch_size=5)
        while await restarted.relay_once():
            pass
    assert await _unpublished(pool, outbox) == 0
    on_topic = await topic_contents(kafka_bootstrap, topic)
    # At-least-once on the wire: the first five went out twice, with the same envelope ids...
    assert [e.id for e in on_topic] == [e.id for e in items[:5]] + [e.id for e in items]
    # ...and a consumer that deduplicates by id applies each exactly once.
    applied: list[str] = []

    async def apply(item: Envelope) -> None:
        applied.append(item.id)

    async with InMemoryBus() as replay:
        await replay.subscribe(
            topic, group="wallet", handler=apply, deduplicator=InMemoryDeduplicator()
        )
        for item in on_topic:
            await replay.publish(topic, item)
        async with asyncio.timeout(5):
            while len(applied) < len(items):  # noqa: ASYNC110 - waiting for the consumer
                await asyncio.sleep(0.01)
    assert applied == [e.id for e in items]


async def _unpublished(pool: asyncpg.Pool, outbox: Outbox) -> int:
    async with pool.acquire() as connection:
        return await outbox.unpublished(connection)


async def test_relay_wakes_on_commit_without_waiting_for_its_poll(
    pool: asyncpg.Pool, outbox: Outbox
) -> None:
    """`add` notifies at commit: with a 60 s poll interval the event still goes out at once."""
    received: list[Envelope] = []

    async def handler(got: Envelope) -> None:
        received.append(got)

    item = envelope("table-3", 1)
    async with InMemoryBus() as bus:
        await bus.subscribe("croupier.table.events", group="g", handler=handler)
        async with OutboxRelay(pool=pool, outbox=outbox, bus=bus, poll_interval_seconds=60):
            await asyncio.sleep(0.2)  # the relay has found nothing and is waiting
            await take_seat(pool, outbox, "croupier.table.events", item)
            async with asyncio.timeout(5):
                while not received:  # noqa: ASYNC110 - waiting for the consumer
                    await asyncio.sleep(0.01)
    assert received == [item]


class BrokerDownOnce:
    """An in-memory bus whose first publish fails, as during a broker restart."""

    def __init__(self, bus: InMemoryBus) -> None:
        self.bus = bus
        self.failed = False

    async def publish_many(self, messages: Sequence[tuple[str, Envelope]]) -> None:
        if not self.failed:
            self.failed = True
            raise ConnectionRefusedError("broker unreachable")
        await self.bus.publish_many(messages)


async def test_running_relay_survives_a_failed_publish_and_retries(
    pool: asyncpg.Pool, outbox: Outbox
) -> None:
    received: list[Envelope] = []

    async def handler(got: Envelope) -> None:
        received.append(got)

    item = envelope("table-4", 1)
    await take_seat(pool, outbox, "croupier.table.events", item)
    async with InMemoryBus() as bus:
        await bus.subscribe("croupier.table.events", group="g", handler=handler)
        flaky = BrokerDownOnce(bus)
        relay = OutboxRelay(pool=pool, outbox=outbox, bus=flaky, poll_interval_seconds=0.1)  # type: ignore[arg-type]
        async with relay:
            async with asyncio.timeout(10):
                while not received:  # noqa: ASYNC110 - waiting for the consumer
                    await asyncio.sleep(0.02)
    assert flaky.failed
    assert received == [item]


async def rows_published_ago(
    pool: asyncpg.Pool, outbox: Outbox, ages: Sequence[str | None]
) -> None:
    """One outbox row per age: published that long ago (an SQL interval), or None: not yet."""
    async with pool.acquire() as connection, connection.transaction():
        for n, age in enumerate(ages):
            row_id = await outbox.add(connection, "t", envelope("table-1", n + 1))
            if age is not None:
                await connection.execute(
                    f"UPDATE {outbox.table} SET published_at = now() - $1::text::interval"
                    " WHERE id = $2",
                    age,
                    row_id,
                )


async def remaining_sequences(pool: asyncpg.Pool, outbox: Outbox) -> list[int]:
    async with pool.acquire() as connection:
        rows = await connection.fetch(f"SELECT envelope FROM {outbox.table} ORDER BY id")
    return [decode_envelope(row["envelope"]).sequence for row in rows]


async def test_rows_published_longer_ago_than_kept_are_deleted(
    pool: asyncpg.Pool, outbox: Outbox
) -> None:
    await rows_published_ago(pool, outbox, ["2 days", "2 hours", "1 minute", None])
    relay = OutboxRelay(pool=pool, outbox=outbox, bus=InMemoryBus(), keep_published_seconds=3600)
    assert await relay.forget_published() == 2
    assert await remaining_sequences(pool, outbox) == [3, 4]  # recent, and not yet published
    assert await relay.forget_published() == 0


async def test_a_running_relay_deletes_old_published_rows_by_itself(
    pool: asyncpg.Pool, outbox: Outbox
) -> None:
    await rows_published_ago(pool, outbox, ["2 days", None])
    async with (
        InMemoryBus() as bus,
        OutboxRelay(
            pool=pool,
            outbox=outbox,
            bus=bus,
            poll_interval_seconds=0.05,
            keep_published_seconds=3600,
        ),
    ):
        async with asyncio.timeout(10):
            while await remaining_sequences(pool, outbox) != [2]:  # noqa: ASYNC110 - polling the table
                await asyncio.sleep(0.02)
    async with pool.acquire() as connection:
        assert await outbox.unpublished(connection) == 0  # the new row went out meanwhile


async def test_a_relay_that_fails_to_listen_or_stops_gives_its_connection_back(
    pool: asyncpg.Pool, outbox: Outbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A lobby stopped while connecting once left its listening connection checked out,
    # and closing its pool then waited for ever.
    idle = pool.get_idle_size()
    relay = OutboxRelay(pool=pool, outbox=outbox, bus=InMemoryBus())
    await relay.start()
    assert pool.get_idle_size() == idle - 1  # the listener
    await relay.stop()
    assert pool.get_idle_size() == idle

    async def refuse(*_: object) -> None:
        raise ConnectionResetError("connection lost")

    monkeypatch.setattr(asyncpg.Connection, "add_listener", refuse)
    failing = OutboxRelay(pool=pool, outbox=outbox, bus=InMemoryBus())
    with pytest.raises(ConnectionResetError):
        await failing.start()
    assert pool.get_idle_size() == idle
    await failing.stop()  # nothing started: nothing to stop
