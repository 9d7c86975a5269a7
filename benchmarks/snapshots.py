"""Table host start-up from snapshots against a full replay of the same log, in the same run.

    deploy/local/with-infra.sh .venv/bin/python -m benchmarks.snapshots \
        [--tables 1000] [--entries 100000]

A partition of the command log on the real broker holds `--tables` tables and `--entries`
entries, interleaved as live tables write them (entry i of every table, then entry i + 1):
each table's entries are the first entries of one of the stored logs of
`tests/data/replay/logs/` (real games of the four engines, bots' play), under a table id
of its own. Then, each a table host process would do at start (`TableHost.start`: join the
group, take the partition, rebuild every table, serve):

- a host with the Kafka snapshot store seeds the snapshots (a full replay, then one
  snapshot per table, and the deal of a hand whose deal the cut left out; not timed);
- peer: a host without snapshots replays the whole partition;
- snapshots: a new host loads the snapshots and reads only the tails, in a process of its
  own as `croupier serve table` starts (`--start-from`), timed from `TableHost.start` to
  serving; the median of `FAST_STARTS` starts. Every table's digest must equal the full
  replay's.

The hosts' clock stands still at the stored logs' end and their timers never fire: a
rebuilt table's turn clock would otherwise run out at once and log timeouts between runs.

The same is done with a tenth of the entries per table (same tables): a start-up from
snapshots should cost the same whatever the history (goal: at most 1.2x), the full replay
ten times less. Both partitions are written first, and the starts from snapshots take
turns between the two sizes, so a busy spell of a shared machine weighs on both alike. A
start in this process after the full replays measured the heap they left behind too (a
new process has none); so did the first version of this script. The issue's sizes are
`--tables 10000 --entries 1000000` (goal: at least 20x faster than the full replay); the
defaults keep `make bench` within a few minutes on a small machine and report the same
ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path

from aiokafka.admin import AIOKafkaAdminClient

from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.collector import paused_then_frozen
from croupier.kit.kafka_producer import AckedProducer
from croupier.table.adapters.kafka_log import KafkaCommandLog
from croupier.table.adapters.kafka_snapshots import KafkaSnapshotStore
from croupier.table.adapters.kafka_topics import create_topics, snapshots_topic_for
from croupier.table.adapters.log_codec import encode
from croupier.table.core.history import _entry_from_json
from croupier.table.core.log_entry import LogEntry
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost

LOGS = Path(__file__).resolve().parents[1] / "tests" / "data" / "replay" / "logs"
SEND_CHUNK = 20_000
FAST_STARTS = 5
STILL_MS = 1_800_000_000_000  # after every stored entry's time
FULL_REPLAY_SECONDS = 3600.0  # a million entries replay for minutes on a small machine


class _Never:
    """A timer that never fires."""

    def cancel(self) -> None:
        return None


_NEVER = _Never()


def bootstrap() -> str:
    return os.environ.get("CROUPIER_KAFKA_BOOTSTRAP", "127.0.0.1:9092")


def stored_logs() -> list[list[LogEntry]]:
    logs = []
    for path in sorted(LOGS.glob("*.json")):
        stored = json.loads(path.read_text())
        logs.append([_entry_from_json(stored["table_id"], e) for e in stored["entries"]])
    return logs


async def write_partition(topic: str, tables: int, per_table: int) -> None:
    """`tables` tables of `per_table` entries each, interleaved, in partition 0."""
    logs = stored_logs()
    longest = min(len(log) for log in logs)
    if per_table > longest:
        raise SystemExit(f"at most {longest} entries per table (the stored logs' length)")
    run = uuid.uuid4().hex[:8]
    producer = AckedProducer(bootstrap(), {"linger.ms": 20})
    try:
        pending = []
        for index in range(per_table):
            for table in range(tables):
                entry = logs[table % len(logs)][index]
                record = replace(entry, table_id=f"bench-{run}-{table}")
                pending.append(
                    producer.send(topic, record.table_id.encode(), encode(record), partition=0)
                )
                if len(pending) >= SEND_CHUNK:
                    await asyncio.gather(*pending)
                    pending = []
        await asyncio.gather(*pending)
    finally:
        await producer.close()


async def start_host(topic: str, snapshots: str | None) -> tuple[float, dict[str, str]]:
    """Seconds from start to serving, and every table's digest. As in `croupier serve
    table`, the rebuild pauses the garbage collector and freezes what it built."""
    bus = InMemoryBus()
    await bus.start()
    host = TableHost(
        engines=load_engines(),
        command_log=KafkaCommandLog(
            bootstrap(),
            topic,
            f"bench-owners-{uuid.uuid4().hex}",
            first_assignment_seconds=FULL_REPLAY_SECONDS,
        ),
        publisher=bus,
        snapshot_store=KafkaSnapshotStore(bootstrap(), snapshots) if snapshots else None,
        now_ms=lambda: STILL_MS,
        call_later=lambda delay_ms, callback: _NEVER,
        bulk_load=paused_then_frozen,
    )
    started = time.perf_counter()
    await host.start()
    seconds = time.perf_counter() - started
    try:
        return seconds, {table_id: host.digest(table_id) for table_id in host.table_ids()}
    finally:
        await host.stop()
        await bus.stop()


@dataclass
class Partition:
    """A partition written and seeded, its full replay timed (the peer)."""

    topic: str
    entries: int
    written: float
    seeding: float
    full: float
    replayed: dict[str, str]
    starts: list[float] = field(default_factory=list)

    @property
    def snapshots(self) -> str:
        return snapshots_topic_for(self.topic)


async def prepare(topic: str, tables: int, entries: int) -> Partition:
    per_table = entries // tables
    await create_topics(bootstrap(), topic, snapshots_topic_for(topic), partitions=1)
    started = time.perf_counter()
    await write_partition(topic, tables, per_table)
    written = time.perf_counter() - started
    seeding, _ = await start_host(topic, snapshots_topic_for(topic))
    full, replayed = await start_host(topic, None)
    return Partition(topic, tables * per_table, written, seeding, full, replayed)


def start_from_snapshots(partition: Partition) -> None:
    """One start from snapshots in a new process; its seconds appended to the partition's
    starts, its digests checked against the full replay's."""
    child = subprocess.run(
        [sys.executable, "-m", "benchmarks.snapshots", "--start-from", partition.topic],
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    )
    seconds, restored = json.loads(child.stdout)
    if restored != partition.replayed:
        differ = sum(restored.get(t) != d for t, d in partition.replayed.items())
        raise SystemExit(
            f"{partition.entries} entries: the tables from snapshots differ from the full "
            f"replay's ({differ} of {len(partition.replayed)})"
        )
    partition.starts.append(seconds)


async def delete(topics: list[str]) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap())
    await admin.start()
    try:
        await admin.delete_topics(
            [t for topic in topics for t in (topic, snapshots_topic_for(topic))]
        )
    finally:
        await admin.close()


def measure(tables: int, entries: int) -> tuple[Partition, Partition]:
    """The partition of `entries` and the one of a tenth as many, both started
    `FAST_STARTS` times from snapshots, taking turns."""
    topics = [f"bench_snap_commands_{uuid.uuid4().hex[:8]}" for _ in range(2)]
    try:
        big, small = (
            asyncio.run(prepare(topic, tables, size))
            for topic, size in zip(topics, (entries, entries // 10), strict=True)
        )
        for _ in range(FAST_STARTS):
            for partition in (big, small):
                start_from_snapshots(partition)
    finally:
        asyncio.run(delete(topics))
    return big, small


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1_000)
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--start-from", help="(internal) one start from this topic's snapshots")
    args, _ = parser.parse_known_args(argv)  # `make bench` passes its arguments to all
    if args.start_from:
        topic = args.start_from
        with contextlib.redirect_stdout(sys.stderr):  # the host's log lines, if any
            started = asyncio.run(start_host(topic, snapshots_topic_for(topic)))
        print(json.dumps(started))
        return 0
    big, small = measure(args.tables, args.entries)
    print(
        f"## Table host start-up, one partition of {args.tables:,} tables "
        "(Kafka log, Kafka snapshot store)\n"
    )
    print("| log entries | full replay (peer) s | from snapshots s | vs full replay |")
    print("|---:|---:|---:|---:|")
    for row in (small, big):
        fast = statistics.median(row.starts)
        print(
            f"| {row.entries:,.0f} | {row.full:.2f} | {fast:.2f} | {row.full / fast:.1f}x faster |"
        )
    print(
        f"\nFrom snapshots, {big.entries:,.0f} entries vs {small.entries:,.0f}: "
        f"{statistics.median(big.starts) / statistics.median(small.starts):.2f}x the time "
        f"(goal <= 1.2x); the full replay {big.full / small.full:.1f}x. Every table's digest "
        f"equals the full replay's. Starts (s), {big.entries:,.0f}: "
        f"{', '.join(f'{s:.2f}' for s in big.starts)}; {small.entries:,.0f}: "
        f"{', '.join(f'{s:.2f}' for s in small.starts)}. (Writing the log: {big.written:.1f} "
        f"s; seeding the snapshots, a full replay that writes one snapshot per table: "
        f"{big.seeding:.1f} s.)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
