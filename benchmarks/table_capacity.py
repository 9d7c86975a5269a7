"""Tables one table-host process holds at human pace before its p99 passes 50 ms.

    deploy/local/with-infra.sh .venv/bin/python -m benchmarks.table_capacity \
        [--start 250] [--think-ms 5000] [--actions 6]

`croupier serve table` runs as its own process on the Kafka command log (the broker
`make bench` started), as `benchmarks.table` starts it. Each step opens a number of Joker
tables with four bots each (opened before the timing starts), then every table acts once
every `--think-ms` on average (drawn between 0.5x and 1.5x: one action per table every
5 s is the issue's human pace), `--actions` times. The number of tables doubles until
two steps in a row pass 50 ms at p99 (one pause of a shared machine can fail a step on
its own), or one step is overloaded (calls fail, or p99 passes 200 ms); the limit is the
largest step within 50 ms.

Per step: actions a second, the `Act` round trip's p50 and p99 as the client sees it,
the server's RSS growth per table opened (from /proc, after the step's tables were
opened and played), and its CPU per 1,000 actions (the server process's user + system
time over the timed play). Peer: the same process on the in-memory command log
(`CROUPIER_COMMAND_LOG=memory`) at the limit's number of tables, which costs no broker
round trip: the ratio is what the durable log costs at that load.

The bots run in this process, on the same 2 cores as the server and the broker: their
CPU is part of what the machine spends.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from pathlib import Path

from benchmarks.table import drive_table, open_table, round_trips, served

P99_LIMIT_MS = 50.0
TOO_SLOW_IN_A_ROW = 2
OVERLOADED_P99_MS = 4 * P99_LIMIT_MS
MAX_TABLES = 16_384
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


def rss_bytes(pid: int) -> int:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_BYTES


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime


async def step(mode: str, tables: int, actions: int, think_ms: int) -> dict[str, float]:
    async with served(mode) as (process, stub):
        empty = rss_bytes(process.pid)
        opened = []
        for first in range(0, tables, 250):  # in bursts: the opening is not the load
            batch = range(first, min(first + 250, tables))
            opened += await asyncio.gather(*(open_table(stub) for _ in batch))
        latencies: list[float] = []
        cpu_before, started = cpu_seconds(process.pid), time.perf_counter()
        ended = await asyncio.gather(
            *(
                drive_table(stub, table, actions, latencies, seed, think_ms)
                for seed, table in enumerate(opened)
            ),
            return_exceptions=True,  # a call the overloaded server dropped
        )
        elapsed = time.perf_counter() - started
        cpu = cpu_seconds(process.pid) - cpu_before
        grown = rss_bytes(process.pid) - empty
    figures = round_trips(latencies, elapsed)
    return {
        **figures,
        "tables": tables,
        "kib_per_table": grown / tables / 1024,
        "cpu_per_1000": cpu / figures["actions"] * 1000,
        "failed": sum(isinstance(outcome, Exception) for outcome in ended),
    }


def row(r: dict[str, float]) -> str:
    return (
        f"| {r['tables']:,.0f} | {r['throughput']:.0f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} "
        f"| {r['kib_per_table']:.0f} | {r['cpu_per_1000']:.1f} | {r['failed']:.0f} |"
    )


def too_slow(r: dict[str, float]) -> bool:
    return r["p99_ms"] > P99_LIMIT_MS or r["failed"] > 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--start", type=int, default=250, help="tables at the first step")
    parser.add_argument("--think-ms", type=int, default=5000, help="mean pause between actions")
    parser.add_argument("--actions", type=int, default=6, help="actions per table per step")
    args, _ = parser.parse_known_args()  # `make bench` passes its arguments to all
    print(
        f"Joker tables of 4 bots on one `croupier serve table` (Kafka command log), one "
        f"action per table every {args.think_ms / 1000:g} s on average, {args.actions} each\n"
    )
    print(
        "| tables | actions/s | p50 ms | p99 ms | RSS KiB per table | CPU s per 1,000 actions "
        "| tables whose calls failed |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    steps: list[dict[str, float]] = []
    slow = 0
    tables = args.start
    while tables <= MAX_TABLES and slow < TOO_SLOW_IN_A_ROW:
        result = asyncio.run(step("kafka", tables, args.actions, args.think_ms))
        print(row(result), flush=True)
        steps.append(result)
        slow = slow + 1 if too_slow(result) else 0
        if result["failed"] or result["p99_ms"] > OVERLOADED_P99_MS:
            break  # overloaded, not a pause: a larger step would only take longer to fail
        tables *= 2
    within = [r for r in steps if not too_slow(r)]
    if not within:
        print(f"\nNo step within {P99_LIMIT_MS:.0f} ms at p99: start lower (--start).")
        return
    limit = max(within, key=lambda r: r["tables"])
    memory = asyncio.run(step("memory", int(limit["tables"]), args.actions, args.think_ms))
    print(f"\nPeer, the in-memory command log at {limit['tables']:,.0f} tables:\n")
    print(row(memory))
    print(
        f"\nLimit: {limit['tables']:,.0f} tables (p99 {limit['p99_ms']:.1f} ms, "
        f"{limit['throughput']:.0f} actions/s); at that load the Kafka log's p99 is "
        f"{limit['p99_ms'] / memory['p99_ms']:.2f}x the in-memory log's and its CPU per "
        f"action {limit['cpu_per_1000'] / memory['cpu_per_1000']:.2f}x."
    )


if __name__ == "__main__":
    main()
