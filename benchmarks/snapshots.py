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
- snapshots: a new host loads the snapshots and reads only the tails (the median of
  `FAST_STARTS` starts). Every table's digest must equal the full replay's.

The hosts' clock stands still at the stored logs' end and their timers never fire: a
rebuilt table's turn clock would otherwise run out at once and log timeouts between runs.

The same is done with a tenth of the entries per table (same tables): a start-up from
snapshots should cost the same whatever the history (goal: at most 1.2x), the full replay
ten times less. The issue's sizes are `--tables 10000 --entries 1000000` (goal: at least
20x faster than the full replay); the defaults keep `make bench` within a few minutes on
a small machine and report the same ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import time
import uuid
from dataclasses import replace
from pathlib import Path

from aiokafka.admin import AIOKafkaAdminClient

from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.collector import paused_then_frozen
from croupier.kit.kafka_producer import AckedProducer
from croupier.table.adapters.kafka_log import KafkaCommandLog
from croupier.table.adapters.kafka_snapshots import KafkaSnapshotStore
from croupier.table.adapters.kafka_topics import create_topics
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
    table`, the rebuild pauses the garbage collector and freezes what it built; the
    previous host's objects are released and collected first, untimed, as a new process
    would not have them."""
    gc.unfreeze()
    gc.collect()
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


async def measure(tables: int, entries: int) -> dict[str, float]:
    per_table = entries // tables
    run = uuid.uuid4().hex[:8]
    topic, snapshots = f"bench_snap_commands_{run}", f"bench_snap_commands_{run}.snapshots"
    await create_topics(bootstrap(), topic, snapshots, partitions=1)
    try:
        started = time.perf_counter()
        await write_partition(topic, tables, per_table)
        written = time.perf_counter() - started
        seeding, _ = await start_host(topic, snapshots)
        full, replayed = await start_host(topic, None)
        # The median of a few starts: joining the group alone varies by 0.1-0.7 s from
        # one start to the next on a shared machine, more than the history's weight.
        starts = [await start_host(topic, snapshots) for _ in range(FAST_STARTS)]
        fast, restored = statistics.median(seconds for seconds, _ in starts), starts[-1][1]
    finally:
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap())
        await admin.start()
        try:
            await admin.delete_topics([topic, snapshots])
        finally:
            await admin.close()
    if restored != replayed or len(restored) != tables:
        raise SystemExit(
            f"{entries} entries: the tables from snapshots differ from the full replay's "
            f"({sum(restored.get(t) != d for t, d in replayed.items())} of {len(replayed)})"
        )
    return {
        "entries": tables * per_table,
        "written": written,
        "full": full,
        "seeding": seeding,
        "snapshots": fast,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1_000)
    parser.add_argument("--entries", type=int, default=100_000)
    args, _ = parser.parse_known_args(argv)  # `make bench` passes its arguments to all
    big = asyncio.run(measure(args.tables, args.entries))
    small = asyncio.run(measure(args.tables, args.entries // 10))
    print(
        f"## Table host start-up, one partition of {args.tables:,} tables "
        "(Kafka log, Kafka snapshot store)\n"
    )
    print("| log entries | full replay (peer) s | from snapshots s | vs full replay |")
    print("|---:|---:|---:|---:|")
    for row in (small, big):
        print(
            f"| {row['entries']:,.0f} | {row['full']:.2f} | {row['snapshots']:.2f} | "
            f"{row['full'] / row['snapshots']:.1f}x faster |"
        )
    print(
        f"\nFrom snapshots, {big['entries']:,.0f} entries vs {small['entries']:,.0f}: "
        f"{big['snapshots'] / small['snapshots']:.2f}x the time (goal <= 1.2x); the full "
        f"replay {big['full'] / small['full']:.1f}x. Every table's digest equals the full "
        f"replay's. (Writing the log: {big['written']:.1f} s; seeding the snapshots, a full "
        f"replay that writes one snapshot per table: {big['seeding']:.1f} s.)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
