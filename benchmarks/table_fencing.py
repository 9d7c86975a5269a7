"""The cost of fencing a zombie owner: the command log's append with owner epochs against
the append without them, in the same run (issue 22).

    deploy/local/with-infra.sh .venv/bin/python -m benchmarks.table_fencing [--appends 2000]

Both append through one librdkafka producer to a one-partition topic of the real broker
(each its own: the peer's records in the fenced log's partition would be a gap to read):

- peer: the append as it was before fencing (one record, no header, awaited);
- fenced: `KafkaCommandLog.append` after a claim (the epoch header, the landing check).

Measured one table at a time (each append awaited before the next: a command's latency)
and with 64 tables appending at once (throughput), the two kinds interleaved in rounds
so the machine's noise falls on both alike; the throughput ratio is the median of the
rounds' ratios (a shared machine's noise moves a single round by 30 %).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable

from aiokafka.admin import AIOKafkaAdminClient

from benchmarks.snapshots import bootstrap
from croupier.kit.kafka_producer import AckedProducer
from croupier.table.adapters.kafka_log import KafkaCommandLog
from croupier.table.adapters.kafka_topics import create_topics
from croupier.table.adapters.log_codec import encode
from croupier.table.core.log_entry import LogEntry

ROUNDS = 9
TABLES = 64

Append = Callable[[LogEntry], Awaitable[object]]


def entry(table_id: str, index: int) -> LogEntry:
    return LogEntry(
        table_id=table_id,
        index=index,
        command_id=f"act:p1:{uuid.uuid4().hex}",
        kind="act",
        player="p1",
        body={"action": {"action": "bid", "tricks": 2}},
        at_ms=1_800_000_000_000 + index,
        engine="joker",
        engine_version="1",
    )


async def one_table(append: Append, appends: int) -> list[float]:
    """Seconds of each append of one table, one after the other."""
    table_id, seconds = uuid.uuid4().hex, []
    for index in range(appends):
        started = time.perf_counter()
        await append(entry(table_id, index + 1))
        seconds.append(time.perf_counter() - started)
    return seconds


async def many_tables(append: Append, appends: int) -> float:
    """Appends per second with `TABLES` tables appending at once."""
    started = time.perf_counter()
    await asyncio.gather(*(one_table(append, appends // TABLES) for _ in range(TABLES)))
    return TABLES * (appends // TABLES) / (time.perf_counter() - started)


async def measure(appends: int) -> dict[str, dict[str, float]]:
    run = uuid.uuid4().hex[:8]
    topic, peer_topic = f"bench_fence_commands_{run}", f"bench_unfenced_commands_{run}"
    topics = [topic, f"{topic}.snapshots", peer_topic, f"{peer_topic}.snapshots"]
    await create_topics(bootstrap(), topic, f"{topic}.snapshots", partitions=1)
    await create_topics(bootstrap(), peer_topic, f"{peer_topic}.snapshots", partitions=1)
    producer = AckedProducer(bootstrap())
    command_log = KafkaCommandLog(bootstrap(), topic, producer=producer)
    try:
        await command_log.start()
        await command_log.claim([0])

        async def unfenced(record: LogEntry) -> object:
            key, value = record.table_id.encode(), encode(record)
            return await producer.send(peer_topic, key, value, partition=0)

        async def fenced(record: LogEntry) -> object:
            return await command_log.append([record])

        kinds: dict[str, Append] = {"unfenced": unfenced, "fenced": fenced}
        latencies: dict[str, list[float]] = {name: [] for name in kinds}
        rates: dict[str, list[float]] = {name: [] for name in kinds}
        for append in kinds.values():  # warm-up: connections, metadata
            await one_table(append, 200)
        for _ in range(ROUNDS):
            for name, append in kinds.items():
                latencies[name] += await one_table(append, appends // ROUNDS)
                rates[name].append(await many_tables(append, appends))
    finally:
        await command_log.stop()
        await producer.close()
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap())
        await admin.start()
        try:
            await admin.delete_topics(topics)
        finally:
            await admin.close()
    return {
        name: {
            "p50": statistics.median(latencies[name]) * 1000,
            "p99": statistics.quantiles(latencies[name], n=100)[98] * 1000,
            "rate": statistics.median(rates[name]),
            # Each round's throughput against the peer's in the same round.
            "rate_ratio": statistics.median(
                mine / peer for mine, peer in zip(rates[name], rates["unfenced"], strict=True)
            ),
        }
        for name in kinds
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=6_400)
    args, _ = parser.parse_known_args(argv)  # `make bench` passes its arguments to all
    figures = asyncio.run(measure(args.appends))
    peer, fenced = figures["unfenced"], figures["fenced"]
    print("## Command-log append with owner epochs (fencing) vs without, same run\n")
    print("| append | p50 ms (one table) | p99 ms (one table) | appends/s (64 tables) |")
    print("|---|---:|---:|---:|")
    for name, row in figures.items():
        print(f"| {name} | {row['p50']:.2f} | {row['p99']:.2f} | {row['rate']:,.0f} |")
    print(
        f"\nFenced vs unfenced: p50 {fenced['p50'] / peer['p50']:.2f}x, "
        f"p99 {fenced['p99'] / peer['p99']:.2f}x, throughput {fenced['rate_ratio']:.2f}x "
        "(the median of the rounds' ratios)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
