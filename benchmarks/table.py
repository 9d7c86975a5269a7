"""Table host: action round trip through gRPC with the Kafka command log vs in memory.

Each mode starts `croupier serve table` as its own process (Kafka: the broker that
`make bench` started; memory: CROUPIER_COMMAND_LOG=memory), opens N Joker tables with four
random-legal bots each, and drives every table from one coroutine: read whose turn it
is, ask that player's view, act. The figure is the `Act` round trip seen by the client
(accept → validate → append to the log with acks=all → answer), over a fixed number of
actions per table. Both modes run in one script, so the ratio compares like with like.

    python -m benchmarks.table [--tables 200] [--actions 40]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import random
import statistics
import subprocess
import sys
import time
import uuid

import grpc

from croupier.table.v1 import table_pb2, table_pb2_grpc

CROUPIER = pathlib.Path(sys.executable).parent / "croupier"
PLAYERS = ["p1", "p2", "p3", "p4"]


def random_action(legal: dict[str, object], rng: random.Random) -> dict[str, object]:
    (kind,) = legal["actions"]  # type: ignore[misc]
    if kind == "trump":
        return {"action": "trump", "suit": rng.choice(legal["suits"])}  # type: ignore[arg-type]
    if kind == "bid":
        return {"action": "bid", "tricks": rng.choice(legal["tricks"])}  # type: ignore[arg-type]
    card = rng.choice(legal["cards"])  # type: ignore[arg-type]
    action: dict[str, object] = {"action": "play", "card": card}
    if str(card).startswith("X"):
        action["joker"] = rng.choice(legal["joker"])  # type: ignore[arg-type]
        if "suits" in legal:
            action["suit"] = rng.choice(legal["suits"])  # type: ignore[arg-type]
    return action


def start_server(mode: str) -> tuple[subprocess.Popen[str], int]:
    env = dict(os.environ)
    env.update(
        CROUPIER_GRPC_HOST="127.0.0.1",
        CROUPIER_GRPC_PORT="0",
        CROUPIER_METRICS_PORT="0",
        CROUPIER_LOG_LEVEL="WARNING",
        CROUPIER_COMMAND_LOG=mode,
        CROUPIER_TABLE_COMMANDS_TOPIC=f"bench_table_commands_{uuid.uuid4().hex[:8]}",
    )
    env.setdefault("CROUPIER_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
    env["CROUPIER_LOG_LEVEL"] = "INFO"  # the "serving" line carries the port
    process = subprocess.Popen(
        [str(CROUPIER), "serve", "table"], env=env, stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    for line in process.stderr:
        if '"serving"' in line:
            return process, int(json.loads(line)["grpc_port"])
    raise RuntimeError(f"croupier serve table ({mode}) exited with {process.wait()}")


async def drive_table(
    stub: table_pb2_grpc.TableEngineStub,
    actions: int,
    latencies: list[float],
    seed: int,
    think_ms: int,
) -> None:
    rng = random.Random(seed)
    table_id = (
        await stub.OpenTable(table_pb2.OpenTableRequest(game="joker", options_json="{}"))
    ).table_id
    for seat, player in enumerate(PLAYERS):
        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(table_id=table_id, player_id=player, seat=seat)
        )
    public = json.loads(
        (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))).view.view_json
    )
    to_act = public["hand"]["to_act"]
    for n in range(actions):
        if think_ms:
            await asyncio.sleep(rng.uniform(0.5, 1.5) * think_ms / 1000)
        mine = json.loads(
            (
                await stub.GetView(table_pb2.GetViewRequest(table_id=table_id, player_id=to_act))
            ).view.view_json
        )
        request = table_pb2.ActRequest(
            table_id=table_id,
            player_id=to_act,
            command_id=f"b{n}",
            action_json=json.dumps(random_action(mine["legal"], rng)),
        )
        started = time.perf_counter()
        response = await stub.Act(request)
        latencies.append(time.perf_counter() - started)
        view = json.loads(response.view.view_json)
        if view["over"]:
            return
        to_act = view["hand"]["to_act"]


async def measure(mode: str, tables: int, actions: int, think_ms: int) -> dict[str, float]:
    process, port = start_server(mode)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = table_pb2_grpc.TableEngineStub(channel)
            latencies: list[float] = []
            started = time.perf_counter()
            await asyncio.gather(
                *(drive_table(stub, actions, latencies, seed, think_ms) for seed in range(tables))
            )
            elapsed = time.perf_counter() - started
    finally:
        process.terminate()
        process.wait()
    ordered = sorted(latencies)
    return {
        "actions": len(ordered),
        "throughput": len(ordered) / elapsed,
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[int(len(ordered) * 0.99) - 1] * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--actions", type=int, default=40, help="actions per table")
    parser.add_argument(
        "--think-ms", type=int, default=500, help="mean pause of a bot before acting (paced load)"
    )
    args = parser.parse_args()
    loads = {"paced": args.think_ms, "closed loop": 0}
    results = {
        (load, mode): asyncio.run(measure(mode, args.tables, args.actions, think))
        for load, think in loads.items()
        for mode in ("kafka", "memory")
    }
    print(f"Act round trip, {args.tables} concurrent Joker tables, gRPC client in another process;")
    print(f"paced = each bot thinks {args.think_ms} ms ±50% before acting, closed loop = no pause")
    print()
    print("| load | command log | actions | actions/s | p50 ms | p99 ms |")
    print("|---|---|---:|---:|---:|---:|")
    for (load, mode), r in results.items():
        print(
            f"| {load} | {mode} | {r['actions']:.0f} | {r['throughput']:.0f} "
            f"| {r['p50_ms']:.1f} | {r['p99_ms']:.1f} |"
        )
    for load in loads:
        kafka, memory = results[(load, "kafka")], results[(load, "memory")]
        print(
            f"\n{load}: Kafka / in-memory p99 {kafka['p99_ms'] / memory['p99_ms']:.2f}x, "
            f"throughput {kafka['throughput'] / memory['throughput']:.2f}x"
        )


if __name__ == "__main__":
    main()
