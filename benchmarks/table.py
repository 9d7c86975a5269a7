"""Table host: action round trip through gRPC with the Kafka command log vs in memory.

Each mode starts `croupier serve table` as its own process (Kafka: the broker that
`make bench` started; memory: CROUPIER_COMMAND_LOG=memory), opens N Joker tables with four
random-legal bots each, and drives every table from one coroutine: read whose turn it
is, ask that player's view, act. The figure is the `Act` round trip seen by the client
(accept → validate → append to the log with acks=all → answer), over a fixed number of
actions per table. Both modes run in one script, so the ratio compares like with like.

The client shares the machine's cores with the server, so it does no more than a bot
needs: it reads whose turn it is and the legal actions from the views' protobuf member
(`view.game.joker`) instead of parsing `view_json`, and asks for that form alone
(`view_format=VIEW_FORMAT_PROTO`), as a typed frontend does: the server then does not
build the JSON form. The bots draw the same actions as when they read the JSON.

Every table is opened and seated (concurrently) before the bots start playing, and the
figures cover the play only: the opening burst (200 OpenTable and 800 SeatPlayer calls,
each logged; openings go one at a time) is not part of the paced load, and acts timed
while it still ran measured the burst.

The figures are for a warm broker. For its first minutes the broker's JIT compiler is
still at work (C2 replacing C1 code, with bursts of deoptimisation), and the round trip
measures that instead: paced Kafka p99 70-390 ms in the first pass after a start, 13-350
ms in the second. A broker started with C1 only (`-XX:TieredStopAtLevel=1`) showed
no such phase but spends about 40% more CPU per record for good. So the script first runs
untimed warm-up passes (the paced Kafka pass itself) until a pass's p99 is within
0.8-1.25x the one before (at most 6), and prints them: 2 passes on a warm broker, 3-4
after a start. Passes of 20 actions per table settled too early: 163, 12.6, 10.4 ms, then
15.5 ms measured.

    python -m benchmarks.table [--tables 200] [--actions 40]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import pathlib
import random
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

from confluent_kafka.admin import AdminClient

from croupier.bots.service.policies import stack_for
from croupier.joker.v1 import joker_pb2
from croupier.kit.auth import new_key_set
from croupier.kit.channels import ServiceChannel
from croupier.kit.service_auth import ServiceCredential
from croupier.table.adapters.kafka_topics import create_topics, snapshots_topic_for
from croupier.table.v1 import table_pb2, table_pb2_grpc

CROUPIER = pathlib.Path(sys.executable).parent / "croupier"


def bootstrap() -> str:
    return os.environ.get("CROUPIER_KAFKA_BOOTSTRAP", "127.0.0.1:9092")


def delete_topic(topic: str) -> None:
    """Drop the run's command-log topic and its snapshot topic: runs do not pile topics up
    on the broker."""
    admin = AdminClient({"bootstrap.servers": bootstrap()})
    topics = [topic, snapshots_topic_for(topic)]
    for deleted in admin.delete_topics(topics, operation_timeout=30).values():
        deleted.result()


PROTO = table_pb2.VIEW_FORMAT_PROTO
JOKER_USES = {
    joker_pb2.JOKER_USE_HIGH: "high",
    joker_pb2.JOKER_USE_TAKE: "take",
    joker_pb2.JOKER_USE_UNDER: "under",
}


def random_action(legal: joker_pb2.Legal, rng: random.Random) -> dict[str, object]:
    """A random legal action, drawn as from the JSON view's `legal` (same lists, same order)."""
    (kind,) = legal.actions
    if kind == joker_pb2.ACTION_KIND_TRUMP:
        return {"action": "trump", "suit": rng.choice(legal.suits)}
    if kind == joker_pb2.ACTION_KIND_BID:
        return {"action": "bid", "tricks": rng.choice(legal.tricks)}
    card = rng.choice(legal.cards).code
    action: dict[str, object] = {"action": "play", "card": card}
    if card.startswith("X"):
        action["joker"] = JOKER_USES[rng.choice(legal.joker_uses)]
        if legal.suits:
            action["suit"] = rng.choice(legal.suits)
    return action


# The table host answers services only (croupier.kit.service_auth): the bench drives it as
# the lobby does, with a credential of a key set made for the run.
SERVICE_KEYS = new_key_set("bench-services")


async def create_run_topics(mode: str, topic: str) -> None:
    """For the Kafka log, `topic` and its snapshot topic (the host never creates its
    topics; `delete_topic` drops both)."""
    if mode == "kafka":
        await create_topics(bootstrap(), topic, snapshots_topic_for(topic))


def start_server(mode: str, topic: str) -> tuple[subprocess.Popen[str], int]:
    env = dict(os.environ)
    env.update(
        CROUPIER_SERVICE_KEYS=SERVICE_KEYS.format(),
        CROUPIER_GRPC_HOST="127.0.0.1",
        CROUPIER_GRPC_PORT="0",
        CROUPIER_METRICS_PORT="0",
        CROUPIER_LOG_LEVEL="WARNING",
        CROUPIER_COMMAND_LOG=mode,
        CROUPIER_TABLE_COMMANDS_TOPIC=topic,
        CROUPIER_KAFKA_BOOTSTRAP=bootstrap(),
    )
    env["CROUPIER_LOG_LEVEL"] = "INFO"  # the "serving" line carries the port
    process = subprocess.Popen(
        [str(CROUPIER), "serve", "table"], env=env, stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    for line in process.stderr:
        if '"serving"' in line:
            return process, int(json.loads(line)["grpc_port"])
    raise RuntimeError(f"croupier serve table ({mode}) exited with {process.wait()}")


TURN_SECONDS = 3600  # the bots' pace is the load; no clock plays for them


@dataclass(frozen=True)
class Game:
    name: str
    options: dict[str, object]
    players: int


GAMES = {
    "poker": Game("poker", {"variant": "nlhe", "blinds": [5, 10]}, 3),
    "backgammon": Game("backgammon", {}, 2),
    "rummy": Game("rummy", {"variant": "gin", "players": 2}, 2),
    "joker": Game("joker", {}, 4),
}


async def open_seated(stub: table_pb2_grpc.TableEngineAsyncStub, game: Game) -> str:
    """A table of `game` with its bots seated (the game starts): its id."""
    request = table_pb2.OpenTableRequest(game=game.name, options_json=json.dumps(game.options))
    request.clock.turn_seconds = TURN_SECONDS
    table_id: str = (await stub.OpenTable(request)).table_id
    stack = stack_for(game.name, game.options)
    for seat in range(game.players):
        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(
                table_id=table_id, player_id=f"p{seat}", seat=seat, stack=stack, is_bot=True
            )
        )
    return table_id


async def open_table(stub: table_pb2_grpc.TableEngineAsyncStub) -> tuple[str, str]:
    """A Joker table with its four bots seated (the game starts): its id and who acts."""
    table_id = await open_seated(stub, GAMES["joker"])
    public = await stub.GetView(table_pb2.GetViewRequest(table_id=table_id, view_format=PROTO))
    return table_id, public.view.game.joker.to_act


async def drive_table(
    stub: table_pb2_grpc.TableEngineAsyncStub,
    table: tuple[str, str],
    actions: int,
    latencies: list[float],
    seed: int,
    think_ms: int,
) -> None:
    rng = random.Random(seed)
    table_id, to_act = table
    for n in range(actions):
        if think_ms:
            await asyncio.sleep(rng.uniform(0.5, 1.5) * think_ms / 1000)
        mine = await stub.GetView(
            table_pb2.GetViewRequest(table_id=table_id, player_id=to_act, view_format=PROTO)
        )
        request = table_pb2.ActRequest(
            table_id=table_id,
            player_id=to_act,
            command_id=f"b{n}",
            action_json=json.dumps(random_action(mine.view.game.joker.legal, rng)),
            view_format=PROTO,
        )
        started = time.perf_counter()
        response = await stub.Act(request)
        latencies.append(time.perf_counter() - started)
        view = response.view.game.joker
        if view.game_over:
            return
        to_act = view.to_act


@contextlib.asynccontextmanager
async def served(
    mode: str,
) -> AsyncIterator[tuple[subprocess.Popen[str], table_pb2_grpc.TableEngineAsyncStub]]:
    """`croupier serve table` on `mode`'s command log (its topics created, then deleted)
    and a stub calling it; the process is stopped on the way out."""
    topic = f"bench_table_commands_{uuid.uuid4().hex[:8]}"
    await create_run_topics(mode, topic)
    process, port = start_server(mode, topic)
    try:
        channel = ServiceChannel(f"127.0.0.1:{port}", ServiceCredential(SERVICE_KEYS, "bench"))
        try:
            yield process, channel.stub(table_pb2_grpc.TableEngineStub)
        finally:
            await channel.close()
    finally:
        process.terminate()
        process.wait()
        if mode == "kafka":
            delete_topic(topic)


def round_trips(latencies: list[float], elapsed: float) -> dict[str, float]:
    """Actions, actions a second, p50 and p99 (ms) of the `Act` round trips timed."""
    ordered = sorted(latencies)
    return {
        "actions": len(ordered),
        "throughput": len(ordered) / elapsed,
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[int(len(ordered) * 0.99) - 1] * 1000,
    }


async def measure(mode: str, tables: int, actions: int, think_ms: int) -> dict[str, float]:
    async with served(mode) as (_, stub):
        opened = await asyncio.gather(*(open_table(stub) for _ in range(tables)))
        latencies: list[float] = []
        started = time.perf_counter()
        await asyncio.gather(
            *(
                drive_table(stub, table, actions, latencies, seed, think_ms)
                for seed, table in enumerate(opened)
            )
        )
        elapsed = time.perf_counter() - started
    return round_trips(latencies, elapsed)


WARM_UP_MAX_PASSES = 6
WARM_UP_SETTLED = 0.8  # settled: a pass's p99 within 0.8-1.25x the previous one's


def warm_up_broker(tables: int, actions: int, think_ms: int) -> list[float]:
    """Untimed paced Kafka passes until the broker's round trip has settled: their p99s."""
    p99s: list[float] = []
    while len(p99s) < WARM_UP_MAX_PASSES:
        p99s.append(asyncio.run(measure("kafka", tables, actions, think_ms))["p99_ms"])
        if len(p99s) >= 2 and WARM_UP_SETTLED <= p99s[-1] / p99s[-2] <= 1 / WARM_UP_SETTLED:
            break
    return p99s


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--actions", type=int, default=40, help="actions per table")
    parser.add_argument(
        "--think-ms", type=int, default=500, help="mean pause of a bot before acting (paced load)"
    )
    args = parser.parse_args()
    loads = {"paced": args.think_ms, "closed loop": 0}
    warm_up = warm_up_broker(args.tables, args.actions, args.think_ms)
    results = {
        (load, mode): asyncio.run(measure(mode, args.tables, args.actions, think))
        for load, think in loads.items()
        for mode in ("kafka", "memory")
    }
    print(f"Act round trip, {args.tables} concurrent Joker tables, gRPC client in another process;")
    print(f"paced = each bot thinks {args.think_ms} ms ±50% before acting, closed loop = no pause")
    print("warm-up passes (paced, Kafka), p99 ms: " + ", ".join(f"{p:.1f}" for p in warm_up))
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
