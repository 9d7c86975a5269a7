"""Every event the run's broker holds, read back after the run (the broker is the run's
own, so each of its topics is this run's alone): counts per topic, and every game's table
command log decoded, which the checks hold the client history against."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient

from croupier.kit.bus.delivery import DLQ_REASON_HEADER, TYPE_HEADER
from croupier.table.adapters.log_codec import UnreadableLog, decode
from croupier.table.adapters.sink import WALLET_REQUESTS_TOPIC
from croupier.table.core.log_entry import LogEntry

CRASH_REFUND_REQUESTED = b"wallet.crash_refund_requested"  # keyed by the table's id


@dataclass
class RecordedEvents:
    per_topic: Counter[str] = field(default_factory=Counter)
    commands: list[LogEntry] = field(default_factory=list)
    unreadable_commands: Counter[str] = field(default_factory=Counter)
    dead_letters: Counter[str] = field(default_factory=Counter)  # "topic: reason"
    # Tables a host voided (it could not resume them) and asked the wallet to refund.
    crash_refunds_requested: set[str] = field(default_factory=set)


async def read_all(bootstrap: str) -> RecordedEvents:
    """Every message of every topic, from the first offset to the end as it is now."""
    recorded = RecordedEvents()
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        topics = [t for t in await admin.list_topics() if not t.startswith("__")]
        described = await admin.describe_topics(topics)
    finally:
        await admin.close()
    partitions = [
        TopicPartition(topic["topic"], p["partition"])
        for topic in described
        for p in topic["partitions"]
    ]
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        ends = {tp: offset for tp, offset in (await consumer.end_offsets(partitions)).items()}
        pending = {tp for tp, offset in ends.items() if offset > 0}
        consumer.assign(list(pending))
        for tp in pending:
            consumer.seek(tp, 0)
        while pending:
            batches = await consumer.getmany(*pending, timeout_ms=2000, max_records=5000)
            if not batches:
                break  # compacted or deleted tail: nothing more will come
            for tp, messages in batches.items():
                recorded.per_topic[tp.topic] += len(messages)
                if tp.topic.endswith(".dlq"):
                    for message in messages:
                        reason = dict(message.headers or ()).get(DLQ_REASON_HEADER, b"")
                        recorded.dead_letters[f"{tp.topic}: {reason.decode()}"] += 1
                if tp.topic == WALLET_REQUESTS_TOPIC:
                    for message in messages:
                        kind = dict(message.headers or ()).get(TYPE_HEADER, b"")
                        if kind == CRASH_REFUND_REQUESTED and message.key is not None:
                            recorded.crash_refunds_requested.add(message.key.decode())
                # Every game's command log (croupier.table.<game>.commands).
                if tp.topic.startswith("croupier.table.") and tp.topic.endswith(".commands"):
                    for message in messages:
                        if message.value is None:
                            continue  # a tombstone (a fence, a compacted key): no entry
                        try:
                            recorded.commands.append(decode(message.value))
                        except UnreadableLog as unreadable:
                            recorded.unreadable_commands[str(unreadable)[:80]] += 1
                if messages and messages[-1].offset + 1 >= ends[tp]:
                    pending.discard(tp)
    finally:
        await consumer.stop()
    return recorded
