"""The command log on Kafka (`croupier.table.commands`, key = table id, acks=all)."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator, Sequence

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from croupier.table.commandlog import TOPIC, LogEntry, ReplayedTable, decode_table


class KafkaCommandLog:
    def __init__(self, bootstrap: str, topic: str = TOPIC) -> None:
        self._bootstrap = bootstrap
        self._topic = topic
        self._producer: AIOKafkaProducer | None = None

    async def start(self) -> None:
        self._producer = AIOKafkaProducer(
            bootstrap_servers=self._bootstrap,
            enable_idempotence=True,
            acks="all",
            linger_ms=0,
        )
        await self._producer.start()

    async def stop(self) -> None:
        if self._producer is not None:
            producer, self._producer = self._producer, None
            await producer.flush()
            await producer.stop()

    async def append(self, entries: Sequence[LogEntry]) -> None:
        if self._producer is None:
            raise RuntimeError("KafkaCommandLog.append before start()")
        # Queue every entry first, then wait: the producer sends them in one request
        # (same key, same partition, order kept by the idempotent producer).
        deliveries = [
            await self._producer.send(
                self._topic,
                value=entry.to_envelope().SerializeToString(),
                key=entry.table_id.encode(),
            )
            for entry in entries
        ]
        await asyncio.gather(*deliveries)

    async def replay(self) -> AsyncIterator[ReplayedTable]:
        """Read every partition from the beginning to the current end, grouped by table."""
        consumer = AIOKafkaConsumer(
            bootstrap_servers=self._bootstrap,
            enable_auto_commit=False,
            isolation_level="read_committed",
        )
        await consumer.start()
        try:
            if self._producer is None:
                raise RuntimeError("KafkaCommandLog.replay before start()")
            # The producer's metadata request creates the topic if needed and names its
            # partitions (the consumer's cached metadata would not know a new topic).
            partitions = await self._producer.partitions_for(self._topic)
            assigned = [TopicPartition(self._topic, p) for p in sorted(partitions)]
            if not assigned:
                return
            consumer.assign(assigned)
            await consumer.seek_to_beginning(*assigned)
            end_offsets = await consumer.end_offsets(assigned)
            by_table: dict[str, list[bytes]] = defaultdict(list)
            remaining = {tp for tp in assigned if end_offsets[tp] > 0}
            while remaining:
                batches = await consumer.getmany(*remaining, timeout_ms=1000)
                for records in batches.values():
                    for record in records:
                        key = (record.key or b"").decode(errors="replace")
                        by_table[key].append(record.value or b"")
                for tp in list(remaining):
                    if await consumer.position(tp) >= end_offsets[tp]:
                        remaining.discard(tp)
            for table_id, raw_entries in by_table.items():
                yield decode_table(table_id, raw_entries)
        finally:
            await consumer.stop()
