"""The snapshot store on Kafka: a compacted topic (`croupier.table.snapshots`) keyed by
table id, each table's snapshot in the partition of the same number as its command log's
(so a replica given log partition p loads snapshot partition p).

Kafka rather than PostgreSQL: the table host needs no database (architecture §5), the
store is written from the same librdkafka producer as the log, and a compacted topic is
what Kafka Streams keeps its state stores' changelogs in. Loading reads the partitions
from the beginning to their end; compaction keeps that near one record per table (the
broker compacts closed segments: `segment.ms` bounds how many older copies remain). A
retired table's key gets a tombstone, which compaction removes with the table's records;
each partition also holds one watermark record (`WATERMARK_KEY`).
"""

from __future__ import annotations

from collections.abc import Collection

from aiokafka import AIOKafkaConsumer, TopicPartition

from croupier.kit.kafka_producer import AckedProducer
from croupier.kit.kafka_security import KafkaSecurity
from croupier.table.adapters.kafka_topics import READ_TO_END_WAIT_MS, SNAPSHOTS_TOPIC
from croupier.table.ports import StoredSnapshots

#: The key of a partition's watermark record (in that partition). No table has it: table
#: ids are UUIDs.
WATERMARK_KEY = b"~watermark"


class KafkaSnapshotStore:
    def __init__(
        self,
        bootstrap: str,
        topic: str = SNAPSHOTS_TOPIC,
        producer: AckedProducer | None = None,
        security: KafkaSecurity | None = None,
    ) -> None:
        """`producer`: write through this started producer (its owner closes it); without
        it the store makes its own and closes it at `stop`. `security`: TLS and SASL (by
        default from the environment, as the command log's)."""
        self._security = security or KafkaSecurity.from_environment()
        self._bootstrap = bootstrap
        self._topic = topic
        self._shared_producer = producer
        self._producer: AckedProducer | None = None

    async def start(self) -> None:
        self._producer = self._shared_producer or AckedProducer(
            self._bootstrap, self._security.librdkafka()
        )

    async def stop(self) -> None:
        producer, self._producer = self._producer, None
        if producer is not None and producer is not self._shared_producer:
            await producer.close()

    async def save(self, table_id: str, partition: int, data: bytes) -> None:
        await self._send(table_id.encode(), data, partition)

    async def forget(self, table_id: str, partition: int) -> None:
        await self._send(table_id.encode(), None, partition)  # a tombstone: compacted away

    async def save_watermark(self, partition: int, offset: int) -> None:
        await self._send(WATERMARK_KEY, str(offset).encode(), partition)

    async def _send(self, key: bytes, value: bytes | None, partition: int) -> None:
        if self._producer is None:
            raise RuntimeError("KafkaSnapshotStore used before start()")
        await self._producer.send(self._topic, key, value, partition=partition)

    async def load(self, partitions: Collection[int]) -> StoredSnapshots:
        latest: dict[str, bytes] = {}
        watermarks: dict[int, int] = {}
        if not partitions:
            return StoredSnapshots(latest, watermarks)
        consumer = AIOKafkaConsumer(
            bootstrap_servers=self._bootstrap,
            enable_auto_commit=False,
            fetch_max_wait_ms=READ_TO_END_WAIT_MS,
            **self._security.aiokafka(),
        )
        await consumer.start()
        try:
            assigned = [TopicPartition(self._topic, p) for p in sorted(partitions)]
            consumer.assign(assigned)
            await consumer.seek_to_beginning(*assigned)
            ends = await consumer.end_offsets(assigned)
            remaining = {tp for tp in assigned if ends[tp] > await consumer.position(tp)}
            while remaining:
                batches = await consumer.getmany(*remaining, timeout_ms=1000)
                for records in batches.values():
                    for record in records:
                        if record.key == WATERMARK_KEY:
                            watermarks[record.partition] = int(record.value or b"0")
                            continue
                        table_id = (record.key or b"").decode(errors="replace")
                        if record.value is None:  # a tombstone: the table was forgotten
                            latest.pop(table_id, None)
                        else:
                            latest[table_id] = record.value
                for tp in list(remaining):
                    if await consumer.position(tp) >= ends[tp]:
                        remaining.discard(tp)
        finally:
            await consumer.stop()
        return StoredSnapshots(latest, watermarks)
