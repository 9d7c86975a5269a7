"""The command log on Kafka (`croupier.table.commands`, key = table id, acks=all).

Replicas of the table host share the topic's partitions through a consumer group
(`<topic>.owners`): each partition, and so each table, belongs to one replica at a
time. When the group rebalances, a replica stops serving the tables of every partition
it holds (`partitions_revoked`); once the new assignment is known it rebuilds the
partitions that are new to it, or that somebody else wrote to meanwhile, from the log,
and takes back the others as they were (`partitions_assigned`, with `unchanged`).

The group consumer never reads records (its partitions stay paused): it exists for the
assignment. Replays read with a separate, unassigned consumer from the beginning to the
end offsets of the moment.

The partition count is fixed for the topic's life: adding partitions would move table
ids to other partitions (Kafka's default partitioner, murmur2 of the key).

Appends go through the kit's `AckedProducer` (librdkafka, idempotent, acks=all; see
`croupier.kit.kafka_producer` for why librdkafka): the event loop only queues the records
and is handed their acknowledgements in one callback per batch. The group membership and
replays stay on aiokafka (rare, not on a command's path).

A replica whose group session expired without it noticing (a stall longer than the
session timeout) is fenced by owner epochs (`adapters.owner_epochs`): a replica that
rebuilds a partition first appends a claim record to it and stamps its records with the
claim's offset; replays skip a fenced owner's records, and the fenced owner refuses its
first command after the takeover (`PartitionTaken`) and lets the partition go.
"""

from __future__ import annotations

import asyncio
import functools
from array import array
from collections import defaultdict
from collections.abc import AsyncIterator, Collection, Mapping, Sequence

import structlog
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener, TopicPartition
from aiokafka.partitioner import murmur2
from prometheus_client import Counter

from croupier.kit.kafka_producer import AckedProducer
from croupier.kit.kafka_security import KafkaSecurity
from croupier.kit.metrics import KAFKA_REBALANCES
from croupier.table.adapters.kafka_topics import READ_TO_END_WAIT_MS
from croupier.table.adapters.log_codec import TOPIC, decode_table, encode
from croupier.table.adapters.owner_epochs import (
    CLAIM_HEADER,
    OwnerEpochs,
    ReplayFence,
    newer_owner,
)
from croupier.table.core.log_entry import LogEntry, ReplayedTable
from croupier.table.ports import PartitionOwner, PartitionTaken

log = structlog.get_logger("croupier.table.kafka_log")

FIRST_ASSIGNMENT_SECONDS = 60.0
# Tables whose partition is remembered: murmur2 is pure Python (5-13 us a key), and
# every append asks for its table's partition.
PARTITION_CACHE_SIZE = 65_536


@functools.lru_cache(maxsize=PARTITION_CACHE_SIZE)
def partition_for(table_id: str, partitions: int) -> int:
    """The partition of `partitions` that Kafka's default partitioner gives the key."""
    return int(murmur2(table_id.encode()) & 0x7FFFFFFF) % partitions


class KafkaCommandLog:
    def __init__(
        self,
        bootstrap: str,
        topic: str = TOPIC,
        group_id: str = "",
        instance_id: str = "",
        producer: AckedProducer | None = None,
        security: KafkaSecurity | None = None,
        first_assignment_seconds: float = FIRST_ASSIGNMENT_SECONDS,
    ) -> None:
        """`instance_id`: a stable name for this replica (a StatefulSet pod's name). With
        it, a replica restarted under the same name takes its partitions back at once
        (Kafka's static membership) instead of after the dead one's session timeout.

        `producer`: append through this started producer (the process's event bus's, so
        the process runs one librdkafka instance and one delivery thread); its owner
        closes it. Without it the log makes its own and closes it at `stop`.

        `security`: TLS and SASL for the log's clients (the bus's `security`); by default
        the process's `CROUPIER_KAFKA_*` settings.

        `first_assignment_seconds`: how long `own_partitions` waits for the first
        assignment, its rebuild included (a benchmark's full replay of a long log takes
        longer than a start-up probe allows)."""
        self._security = security or KafkaSecurity.from_environment()
        self._first_assignment_seconds = first_assignment_seconds
        self._shared_producer = producer
        self._bootstrap = bootstrap
        self._topic = topic
        self._group_id = group_id or f"{topic}.owners"
        self._instance_id = instance_id or None
        self._appender: AckedProducer | None = None
        self._partitions = 0
        self._members: AIOKafkaConsumer | None = None
        self._membership: asyncio.Task[None] | None = None
        self._listener: _Listener | None = None
        # Per partition, the offset the next record will get as far as this replica knows
        # (end of its replay, then after each of its appends): a partition whose end
        # offset differs after a rebalance was written by someone else meanwhile.
        self._next_offset: dict[int, int] = {}
        self._epochs = OwnerEpochs()
        self._owner: PartitionOwner | None = None
        self._gap_checks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._taken: set[int] = set()  # partitions found claimed by another replica
        self._letting_go: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        # A failed append (after the producer's delivery timeout) fences the table: the
        # record may be stored all the same (`TableHost._append`).
        appender = self._shared_producer or AckedProducer(
            self._bootstrap, self._security.librdkafka()
        )
        try:
            # The metadata request creates the topic if needed and names its partitions.
            self._partitions = await appender.partition_count(self._topic)
        except BaseException:
            if appender is not self._shared_producer:
                await appender.close()
            raise
        self._appender = appender

    async def stop(self) -> None:
        if self._membership is not None:
            self._membership.cancel()
            self._membership = None
        if self._listener is not None:
            listener, self._listener = self._listener, None
            await listener.cancel_assigning()  # a rebuild in progress: the host is stopping
        if self._members is not None:
            members, self._members = self._members, None
            await members.stop()  # leaves the group: the others take the partitions over
        if self._appender is not None:
            appender, self._appender = self._appender, None
            if appender is not self._shared_producer:
                await appender.close()

    def partition_of(self, table_id: str) -> int:
        """The partition Kafka's default partitioner puts the table's key in."""
        return partition_for(table_id, self._partitions)

    def end_offset(self, partition: int) -> int:
        return self._next_offset.get(partition, 0)

    async def append(self, entries: Sequence[LogEntry]) -> int:
        if self._appender is None:
            raise RuntimeError("KafkaCommandLog.append before start()")
        # Queue every entry first, then wait: the producer sends them together (same key,
        # same partition, order kept by the idempotent producer). The partition is given
        # explicitly: the one `partition_of` names, whatever the producer's partitioner.
        sequences: list[int] = []
        deliveries = []
        for entry in entries:
            partition = self.partition_of(entry.table_id)
            sequences.append(self._epochs.next_sequence(partition))
            deliveries.append(
                self._appender.send(
                    self._topic,
                    entry.table_id.encode(),
                    encode(entry),
                    partition=partition,
                    headers=self._epochs.header(partition),
                )
            )
        if len(deliveries) == 1:
            stored = [await deliveries[0]]
        else:
            stored = await asyncio.gather(*deliveries)
        for sequence, (partition, offset) in zip(sequences, stored, strict=True):
            await self._check_owner(partition, sequence, offset)
            self._next_offset[partition] = max(self._next_offset.get(partition, 0), offset + 1)
        return stored[-1][1]

    async def claim(self, partitions: Collection[int]) -> None:
        """Take `partitions` over before rebuilding them: a claim record in each, whose
        offset is this replica's owner epoch there (a former owner's later records are
        fenced)."""
        if self._appender is None or not partitions:
            return
        claims = []
        for partition in sorted(partitions):
            sequence = self._epochs.next_sequence(partition)
            delivery = self._appender.send(
                self._topic,
                None,
                None,
                partition=partition,
                headers=[(CLAIM_HEADER, (self._instance_id or self._group_id).encode())],
            )
            claims.append((sequence, delivery))
        for sequence, delivery in claims:
            partition, offset = await delivery
            self._epochs.claimed(partition, offset, sequence)
            self._taken.discard(partition)
            self._next_offset[partition] = max(self._next_offset.get(partition, 0), offset + 1)

    async def _check_owner(self, partition: int, sequence: int, offset: int) -> None:
        """Raise `PartitionTaken` when a record of another owner's claim was stored before
        ours since our previous record (read only when ours landed past the predicted
        offset: without a takeover, never)."""
        async with self._gap_checks[partition]:
            if partition not in self._taken:
                gap = self._epochs.landed(partition, sequence, offset)
                if gap is None or not await self._claimed_between(partition, gap, offset):
                    return
                self._let_go(partition)
        raise PartitionTaken(f"command-log partition {partition} was taken over by another replica")

    async def _claimed_between(self, partition: int, start: int, end: int) -> bool:
        """Whether a record at offsets `start` to `end - 1` shows a newer owner."""
        epoch = self._epochs.epoch(partition)
        consumer = AIOKafkaConsumer(
            bootstrap_servers=self._bootstrap,
            **self._security.aiokafka(),
            enable_auto_commit=False,
            fetch_max_wait_ms=READ_TO_END_WAIT_MS,
        )
        await consumer.start()
        try:
            tp = TopicPartition(self._topic, partition)
            consumer.assign([tp])
            consumer.seek(tp, start)
            while await consumer.position(tp) < end:
                for record in (await consumer.getmany(tp, timeout_ms=1000)).get(tp, []):
                    if record.offset < end and newer_owner(record.headers, record.offset, epoch):
                        return True
            return False
        finally:
            await consumer.stop()

    def _let_go(self, partition: int) -> None:
        """Another replica owns `partition` now: park its tables; the group's next
        assignment (if it gives the partition back) rebuilds them from the log."""
        log.warning("partition taken over by another replica", partition=partition)
        self._taken.add(partition)
        self._epochs.forget(partition)
        self._next_offset[partition] = -1  # never "unchanged": rebuilt if it comes back
        if self._owner is not None:
            task = asyncio.create_task(self._owner.partitions_revoked(frozenset({partition})))
            self._letting_go.add(task)
            task.add_done_callback(self._letting_go.discard)

    async def own_partitions(self, owner: PartitionOwner) -> None:
        """Join the group of replicas; returns once the first assignment was served."""
        members = AIOKafkaConsumer(
            bootstrap_servers=self._bootstrap,
            **self._security.aiokafka(),
            group_id=self._group_id,
            group_instance_id=self._instance_id,
            heartbeat_interval_ms=1000,  # rebalances are noticed within a second
            enable_auto_commit=False,
            auto_offset_reset="latest",
        )
        await members.start()
        self._members = members
        self._owner = owner
        first = asyncio.Event()
        rebalances = KAFKA_REBALANCES.labels(self._group_id, self._topic)
        listener = self._listener = _Listener(self, members, owner, first, rebalances)
        members.subscribe([self._topic], listener=listener)
        self._membership = asyncio.create_task(self._stay_member(members))
        try:
            await asyncio.wait_for(first.wait(), self._first_assignment_seconds)
        except TimeoutError as exc:
            raise RuntimeError(
                f"no partition assignment from group {self._group_id!r} "
                f"within {self._first_assignment_seconds:.0f} s"
            ) from exc

    @staticmethod
    async def _stay_member(members: AIOKafkaConsumer) -> None:
        """Poll (partitions are paused: nothing is fetched) so the group keeps us."""
        while True:
            await members.getmany(timeout_ms=1000)

    async def unchanged(self, partitions: Collection[int]) -> frozenset[int]:
        """Of `partitions`, those whose end offset is where this replica left it."""
        if not partitions or self._members is None:
            return frozenset()
        ends = await self._members.end_offsets([TopicPartition(self._topic, p) for p in partitions])
        return frozenset(
            tp.partition for tp, end in ends.items() if self._next_offset.get(tp.partition) == end
        )

    async def replay(
        self,
        partitions: Collection[int] | None = None,
        since: Mapping[int, int] | None = None,
        covered: Mapping[str, int] | None = None,
    ) -> AsyncIterator[ReplayedTable]:
        """Read `partitions` (default: all) from `since` (default: the beginning) to their
        current end, grouped by table; records a table's snapshot covers are not decoded."""
        consumer = AIOKafkaConsumer(
            bootstrap_servers=self._bootstrap,
            **self._security.aiokafka(),
            enable_auto_commit=False,
            isolation_level="read_committed",
            fetch_max_wait_ms=READ_TO_END_WAIT_MS,
        )
        await consumer.start()
        try:
            numbers = range(self._partitions) if partitions is None else sorted(partitions)
            assigned = [TopicPartition(self._topic, p) for p in numbers]
            if not assigned:
                return
            consumer.assign(assigned)
            await consumer.seek_to_beginning(*assigned)
            for tp in assigned:
                start = (since or {}).get(tp.partition, 0)
                if start > await consumer.position(tp):
                    consumer.seek(tp, start)
            end_offsets = await consumer.end_offsets(assigned)
            by_table: dict[str, list[bytes]] = defaultdict(list)
            # Per table, its records' offsets and epochs: fenced ones are dropped once the
            # whole range is read (arrays: 16 bytes a record on a million-record replay).
            offsets: defaultdict[str, array[int]] = defaultdict(lambda: array("q"))
            epochs: defaultdict[str, array[int]] = defaultdict(lambda: array("q"))
            partition_of: dict[str, int] = {}
            covered = covered or {}
            fence = ReplayFence()
            remaining = {tp for tp in assigned if end_offsets[tp] > await consumer.position(tp)}
            while remaining:
                batches = await consumer.getmany(*remaining, timeout_ms=1000)
                for records in batches.values():
                    for record in records:
                        epoch = fence.note(record.partition, record.offset, record.headers)
                        if epoch is None:
                            continue  # a claim
                        key = (record.key or b"").decode(errors="replace")
                        if record.offset > covered.get(key, -1):
                            by_table[key].append(record.value or b"")
                            partition_of[key] = record.partition
                            offsets[key].append(record.offset)
                            epochs[key].append(epoch)
                for tp in list(remaining):
                    if await consumer.position(tp) >= end_offsets[tp]:
                        remaining.discard(tp)
            for tp, end in end_offsets.items():
                self._next_offset[tp.partition] = end
            for table_id, raw_entries in by_table.items():
                partition = partition_of[table_id]
                kept = [
                    (offset, raw)
                    for offset, epoch, raw in zip(
                        offsets[table_id], epochs[table_id], raw_entries, strict=True
                    )
                    if not fence.fenced(partition, offset, epoch)
                ]
                if kept:  # (a table only a fenced owner wrote to never existed)
                    yield decode_table(table_id, [raw for _, raw in kept], kept[-1][0])
        finally:
            await consumer.stop()


class _Listener(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(
        self,
        log: KafkaCommandLog,
        members: AIOKafkaConsumer,
        owner: PartitionOwner,
        first: asyncio.Event,
        rebalances: Counter,
    ) -> None:
        self._log = log
        self._members = members
        self._owner = owner
        self._first = first
        self._rebalances = rebalances  # croupier_kafka_consumer_rebalances_total's child
        self._assigning: asyncio.Task[None] | None = None

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        if self._assigning is not None:
            # The previous assignment's rebuild ends first (a partition half rebuilt must
            # not be parked as if it were whole). Not cancelled by a cancelled wait.
            await asyncio.wait({self._assigning})
        await self._owner.partitions_revoked(frozenset(tp.partition for tp in revoked))

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self._rebalances.inc()
        self._members.pause(*assigned)
        # The rebuild runs once this callback has returned: aiokafka sends no heartbeat
        # while a rebalance callback runs, so a rebuild longer than the session timeout
        # (10 s) had the broker expel the member, and the rebuild started over.
        self._assigning = asyncio.create_task(
            self._assign(frozenset(tp.partition for tp in assigned)), name="table-log:assign"
        )
        self._assigning.add_done_callback(_log_failure)

    async def cancel_assigning(self) -> None:
        if self._assigning is not None and not self._assigning.done():
            self._assigning.cancel()
            await asyncio.wait({self._assigning})

    async def _assign(self, partitions: frozenset[int]) -> None:
        unchanged = await self._log.unchanged(partitions)
        await self._log.claim(partitions - unchanged)
        log.info(
            "partitions assigned",
            partitions=sorted(partitions),
            rebuilt=sorted(partitions - unchanged),
        )
        await self._owner.partitions_assigned(partitions, unchanged)
        self._first.set()


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("taking partitions failed", exc_info=task.exception())
