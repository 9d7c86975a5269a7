"""`AckedProducer` (librdkafka, acknowledgements resolve asyncio futures) against the real
broker: an acknowledged send names where the record is and it reads back as sent; one key's
records keep their order in the partition Kafka's default partitioner (murmur2) names; with
no broker, a send fails after the delivery timeout and `close` fails what it could not
deliver, instead of leaving a future pending for ever."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import confluent_kafka
import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.partitioner import murmur2

from croupier.kit.kafka_producer import AckedProducer
from tests.support.infra import create_topic, unique_name

pytestmark = pytest.mark.timeout(60)

PARTITIONS = 3
NOBODY = "127.0.0.1:9"  # the discard port: nothing listens there


async def new_topic(bootstrap: str) -> str:
    topic = unique_name("producer")
    await create_topic(bootstrap, topic, PARTITIONS)
    return topic


async def read(bootstrap: str, topic: str, partition: int, offset: int, count: int) -> list[Any]:
    """`count` records of one partition from `offset` on."""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        where = TopicPartition(topic, partition)
        consumer.assign([where])
        consumer.seek(where, offset)
        records: list[Any] = []
        async with asyncio.timeout(30):
            while len(records) < count:
                records.extend((await consumer.getmany(where, timeout_ms=200)).get(where, []))
        return records[:count]
    finally:
        await consumer.stop()


async def test_an_acknowledged_record_reads_back_where_the_future_says(
    kafka_bootstrap: str,
) -> None:
    topic = await new_topic(kafka_bootstrap)
    producer = AckedProducer(kafka_bootstrap, {"client.id": "croupier-tests"})
    try:
        headers = [("croupier-type", b"test.happened"), ("empty", b"")]
        keyed = await producer.send(topic, b"table-7", b"value \x00\xff", headers=headers)
        placed = await producer.send(topic, b"table-7", b"placed", partition=2)
        unkeyed = await producer.send(topic, None, b"no key")
    finally:
        await producer.close()

    partition, offset = keyed
    assert partition == int(murmur2(b"table-7") & 0x7FFFFFFF) % PARTITIONS
    (record,) = await read(kafka_bootstrap, topic, partition, offset, 1)
    assert (record.key, record.value, list(record.headers)) == (
        b"table-7",
        b"value \x00\xff",
        headers,
    )
    assert placed[0] == 2  # an explicit partition wins over the key's
    (record,) = await read(kafka_bootstrap, topic, *placed, 1)
    assert (record.key, record.value) == (b"table-7", b"placed")
    (record,) = await read(kafka_bootstrap, topic, *unkeyed, 1)
    assert (record.key, record.value) == (None, b"no key")


async def test_records_with_the_same_key_keep_their_order(kafka_bootstrap: str) -> None:
    topic = await new_topic(kafka_bootstrap)
    producer = AckedProducer(kafka_bootstrap)
    count = 200
    try:
        # All queued before any is acknowledged: several requests may be in flight at once.
        stored = await asyncio.gather(
            *(producer.send(topic, b"subject", str(n).encode()) for n in range(count))
        )
    finally:
        await producer.close()

    assert {partition for partition, _ in stored} == {stored[0][0]}
    offsets = [offset for _, offset in stored]
    assert offsets == sorted(offsets) and len(set(offsets)) == count
    records = await read(kafka_bootstrap, topic, stored[0][0], offsets[0], count)
    assert [r.value for r in records] == [str(n).encode() for n in range(count)]


async def test_a_send_without_a_broker_fails_after_the_delivery_timeout() -> None:
    producer = AckedProducer(NOBODY, {"message.timeout.ms": 1000})
    try:
        began = time.monotonic()
        with pytest.raises(confluent_kafka.KafkaException) as raised:
            async with asyncio.timeout(15):  # librdkafka checks timeouts about every second
                await producer.send("nowhere", b"k", b"v")
        waited = time.monotonic() - began
    finally:
        await producer.close()
    assert raised.value.args[0].code() == confluent_kafka.KafkaError._MSG_TIMED_OUT
    assert waited >= 0.9, waited


async def test_close_fails_what_it_could_not_deliver_and_refuses_more() -> None:
    producer = AckedProducer(NOBODY, {"message.timeout.ms": 60_000})
    pending = producer.send("nowhere", b"k", b"v")
    async with asyncio.timeout(15):
        await producer.close(flush_seconds=0.5)
        with pytest.raises(confluent_kafka.KafkaException) as raised:
            await pending
    assert raised.value.args[0].code() == confluent_kafka.KafkaError._PURGE_QUEUE
    with pytest.raises(RuntimeError):
        producer.send("nowhere", b"k", b"v")
    await producer.close()  # twice is fine
