"""The Kafka command log's appends (librdkafka producer, acknowledgements handed to the
event loop): every entry lands in the partition `partition_of` names, in order, once;
concurrent appends of many tables all complete; a replay returns them as appended."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from croupier.kit.bus.kafka import KafkaBus
from croupier.table.adapters.kafka_log import KafkaCommandLog
from croupier.table.adapters.log_codec import encode
from croupier.table.core.log_entry import LogEntry
from tests.support.infra import create_topic, unique_name
from tests.support.kafka_table import PARTITIONS

pytestmark = pytest.mark.timeout(120)


def entry(table_id: str, index: int) -> LogEntry:
    return LogEntry(
        table_id=table_id,
        index=index,
        command_id=f"act:p1:{index}",
        kind="act",
        player="p1",
        body={"action": {"action": "bid", "tricks": index % 3}},
        at_ms=1_700_000_000_000 + index,
        engine="joker",
        engine_version="1",
    )


async def test_appends_land_in_partition_of_in_order_and_replay_as_appended(
    kafka_bootstrap: str,
) -> None:
    topic = unique_name("table_commands")
    await create_topic(kafka_bootstrap, topic, PARTITIONS)
    log = KafkaCommandLog(kafka_bootstrap, topic)
    await log.start()
    tables = [str(uuid.uuid4()) for _ in range(24)]
    try:

        async def play(table_id: str) -> None:
            # single appends and two-entry appends (a command with the deal it allows)
            index = 1
            while index <= 9:
                batch = [entry(table_id, index)]
                if index % 4 == 0:
                    batch.append(entry(table_id, index + 1))
                await log.append(batch)
                index += len(batch)

        await asyncio.gather(*(play(t) for t in tables))
        partitions = {log.partition_of(t) for t in tables}
        assert len(partitions) > 1
        assert await log.unchanged(range(PARTITIONS)) == frozenset()  # no group joined
        for partition in sorted(partitions):
            replayed = {r.table_id: r async for r in log.replay([partition])}
            assert set(replayed) == {t for t in tables if log.partition_of(t) == partition}
            for table_id, table in replayed.items():
                assert table.unreadable is None
                assert [e.index for e in table.entries] == list(range(1, 10))
                assert table.entries == [entry(table_id, i) for i in range(1, 10)]
    finally:
        await log.stop()


async def test_a_cancelled_append_does_not_disturb_the_next_ones(kafka_bootstrap: str) -> None:
    log = KafkaCommandLog(kafka_bootstrap, unique_name("table_commands"))
    await log.start()
    table_id = str(uuid.uuid4())
    try:
        waiting = asyncio.create_task(log.append([entry(table_id, 1)]))
        await asyncio.sleep(0)
        waiting.cancel()  # the record may be stored all the same: the host fences the table
        await asyncio.gather(waiting, return_exceptions=True)
        await log.append([entry(table_id, 2), entry(table_id, 3)])
        (replayed,) = [r async for r in log.replay([log.partition_of(table_id)])]
        assert [e.index for e in replayed.entries] == [1, 2, 3]
    finally:
        await log.stop()


async def test_a_log_on_the_bus_producer_leaves_it_open_for_the_bus(kafka_bootstrap: str) -> None:
    """`croupier serve table` runs one producer: the bus's, which the log borrows."""
    topic = unique_name("table_commands")
    await create_topic(kafka_bootstrap, topic, PARTITIONS)
    async with KafkaBus(bootstrap_servers=kafka_bootstrap) as bus:
        log = KafkaCommandLog(kafka_bootstrap, topic, producer=bus.producer)
        await log.start()
        table_id = str(uuid.uuid4())
        await log.append([entry(table_id, 1)])
        await log.stop()
        # Still the bus's to use after the log stopped.
        await bus.publish_raw(topic, key=table_id.encode(), value=encode(entry(table_id, 2)))
        (replayed,) = [r async for r in log.replay([log.partition_of(table_id)])]
        assert [e.index for e in replayed.entries] == [1, 2]
