"""Tables one table-host process holds at human pace before its p99 passes 50 ms.

    deploy/local/with-infra.sh .venv/bin/python -m benchmarks.table_capacity \
        [--start 250] [--think-ms 5000] [--actions 6]

`croupier serve table` runs as its own process on the Kafka command log (the broker
`make bench` started), as `benchmarks.table` starts it. Per game (`--games`: poker NLHE
cash tables of 3, backgammon for 2, gin rummy for 2, Joker for 4, all for play chips),
each step opens a number of tables with their bots seated (opened before the timing
starts), then every table acts once every `--think-ms` on average (drawn between 0.5x and
1.5x: one action per table every 5 s is the issue's human pace), `--actions` times. The
bots are the platform's own (`croupier.bots`' policies, on the JSON view a player's
client gets): a table's actor reads its view once and acts; after an action, the view the
`Act` answered says whether the same player acts again (backgammon's roll then move,
rummy's draw then discard), else the next seats read theirs. The number of tables doubles until
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
CPU is part of what the machine spends. Only the `Act` is timed; the view reads are load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
from pathlib import Path

from benchmarks.table import GAMES, Game, open_seated, round_trips, served
from croupier.bots.service.policies import Policy, policy_for
from croupier.table.v1 import table_pb2, table_pb2_grpc

P99_LIMIT_MS = 50.0
TOO_SLOW_IN_A_ROW = 2
OVERLOADED_P99_MS = 4 * P99_LIMIT_MS
MAX_TABLES = 16_384
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


JSON_VIEW = table_pb2.VIEW_FORMAT_JSON


async def drive_table(
    stub: table_pb2_grpc.TableEngineAsyncStub,
    game: Game,
    table_id: str,
    actions: int,
    latencies: list[float],
    seed: int,
    think_ms: int,
) -> None:
    """`actions` actions at `table_id`, each after a pause of about `think_ms`."""
    rng = random.Random(seed)
    players = [f"p{seat}" for seat in range(game.players)]
    policies: list[Policy] = []
    for player in players:
        policy = policy_for(game.name, player, rng, game.options)
        assert policy is not None, game.name
        policies.append(policy)
    seat, view = 0, None  # the seat that acted last and the view its `Act` answered
    for n in range(actions):
        await asyncio.sleep(rng.uniform(0.5, 1.5) * think_ms / 1000)
        action = None if view is None else policies[seat].decide(view)
        count = len(players)
        readers = range(count) if view is None else [(seat + k) % count for k in range(1, count)]
        for reader in readers:
            if action is not None:
                break
            answered = await stub.GetView(
                table_pb2.GetViewRequest(
                    table_id=table_id, player_id=players[reader], view_format=JSON_VIEW
                )
            )
            view = json.loads(answered.view.view_json)
            seat, action = reader, policies[reader].decide(view)
        if action is None:
            return  # nobody has anything to do: the game is over
        request = table_pb2.ActRequest(
            table_id=table_id,
            player_id=players[seat],
            command_id=f"b{n}",
            action_json=json.dumps(action),
            view_format=JSON_VIEW,
        )
        started = time.perf_counter()
        response = await stub.Act(request)
        latencies.append(time.perf_counter() - started)
        view = json.loads(response.view.view_json)


def rss_bytes(pid: int) -> int:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_BYTES


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime


async def step(game: Game, mode: str, tables: int, actions: int, think_ms: int) -> dict[str, float]:
    async with served(mode) as (process, stub):
        empty = rss_bytes(process.pid)
        opened = []
        for first in range(0, tables, 250):  # in bursts: the opening is not the load
            batch = range(first, min(first + 250, tables))
            opened += await asyncio.gather(*(open_seated(stub, game) for _ in batch))
        latencies: list[float] = []
        cpu_before, started = cpu_seconds(process.pid), time.perf_counter()
        ended = await asyncio.gather(
            *(
                drive_table(stub, game, table, actions, latencies, seed, think_ms)
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


def capacity(game: Game, start: int, actions: int, think_ms: int) -> None:
    """Double `game`'s tables from `start` until p99 passes 50 ms; print the steps, the
    peer at the limit and the limit."""
    print(
        f"\n### {game.name}: tables of {game.players} bots, one action per table every "
        f"{think_ms / 1000:g} s on average, {actions} each\n"
    )
    print(
        "| tables | actions/s | p50 ms | p99 ms | RSS KiB per table | CPU s per 1,000 actions "
        "| tables whose calls failed |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    steps: list[dict[str, float]] = []
    slow = 0
    tables = start
    while tables <= MAX_TABLES and slow < TOO_SLOW_IN_A_ROW:
        result = asyncio.run(step(game, "kafka", tables, actions, think_ms))
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
    memory = asyncio.run(step(game, "memory", int(limit["tables"]), actions, think_ms))
    print(f"\nPeer, the in-memory command log at {limit['tables']:,.0f} tables:\n")
    print(row(memory))
    print(
        f"\n{game.name}: limit {limit['tables']:,.0f} tables (p99 {limit['p99_ms']:.1f} ms, "
        f"{limit['throughput']:.0f} actions/s); at that load the Kafka log's p99 is "
        f"{limit['p99_ms'] / memory['p99_ms']:.2f}x the in-memory log's and its CPU per "
        f"action {limit['cpu_per_1000'] / memory['cpu_per_1000']:.2f}x.",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated")
    parser.add_argument("--start", type=int, default=250, help="tables at the first step")
    parser.add_argument("--think-ms", type=int, default=5000, help="mean pause between actions")
    parser.add_argument("--actions", type=int, default=6, help="actions per table per step")
    args, _ = parser.parse_known_args()  # `make bench` passes its arguments to all
    print("One `croupier serve table` on the Kafka command log, per game:")
    for name in args.games.split(","):
        capacity(GAMES[name], args.start, args.actions, args.think_ms)


if __name__ == "__main__":
    main()
