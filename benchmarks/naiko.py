"""Naiko bots-only table: hands per second in process vs through the service (one run).

The same 6-seat Naiko table of bots (`croupier.poker.tools.bots`, each deciding from its own
seat's view, powers included; busted bots buy in again) is played three ways:

1. in process: the pure table adapter (`PokerEngine`) and the bots, no host, no I/O
   (the peer every other row is compared with);
2. service, in-memory log: the table host behind its gRPC TableEngine server in this
   process, `InMemoryCommandLog` and `InMemoryBus`; each decision is `GetView` for the
   bot's seat, then `Act`;
3. service, Kafka: the same with `KafkaCommandLog` (a topic of its own, acks=all) and
   `KafkaBus` on the broker at CROUPIER_KAFKA_BOOTSTRAP (default 127.0.0.1:9092;
   `make bench` / deploy/local/with-infra.sh start it). No broker: the run fails.

The deals and the bots' random choices use the same seeds in every row; the service rows
differ slightly in what is played (the host deals hand 1 as soon as two bots sit, so it
is heads-up), which is why the decision counts differ a little.

Usage: `.venv/bin/python -m benchmarks.naiko [--hands 300] [--bots random|rule|mixed]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import grpc

from croupier.kit.bus.kafka import KafkaBus
from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.poker.tools.bots import Bot, make_bot, play_in_process, seed_for
from croupier.table.adapters.kafka_log import KafkaCommandLog
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.bootstrap import table_service
from croupier.table.ports import CommandLog, Publisher
from croupier.table.service.host import TableHost
from croupier.table.v1 import table_pb2, table_pb2_grpc

OPTIONS = {"variant": "naiko", "blinds": [5, 10], "seats": 6}
BUY_IN = 1000
KINDS = {
    "random": ["random"] * 6,
    "rule": ["rule"] * 6,
    "mixed": ["rule", "random"] * 3,
}


class Seeds:
    def __init__(self, label: str) -> None:
        self.label, self.count = label, 0

    def __call__(self) -> bytes:
        self.count += 1
        return seed_for(self.label, self.count)


@asynccontextmanager
async def service(kafka: str | None) -> AsyncIterator[Any]:
    publisher: Publisher
    log: CommandLog
    if kafka is None:
        bus = InMemoryBus()
        publisher, log = bus, InMemoryCommandLog()
    else:
        kbus = KafkaBus(bootstrap_servers=kafka)
        bus = kbus  # type: ignore[assignment]
        publisher, log = kbus, KafkaCommandLog(kafka, f"bench_naiko_{uuid.uuid4().hex[:12]}")
    await bus.start()
    from croupier.poker.engine import ENGINE

    host = TableHost(
        engines={"poker": ENGINE}, command_log=log, publisher=publisher, seeds=Seeds("bench")
    )
    await host.start()
    server = ServiceHost(
        settings=ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0),
        services=[table_service(host)],
        on_stop=[host.stop, bus.stop],
        serve_metrics_endpoint=False,
    )
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            yield table_pb2_grpc.TableEngineStub(channel)
    finally:
        await server.stop()


async def play_service(kafka: str | None, kinds: Sequence[str], hands: int) -> tuple[int, int]:
    """Play `hands` hands through gRPC; (hands, decisions)."""
    async with service(kafka) as stub:
        request = table_pb2.OpenTableRequest(game="poker", options_json=json.dumps(OPTIONS))
        request.clock.turn_seconds = 3600
        table_id = (await stub.OpenTable(request)).table_id
        players = [f"{kind}{i}" for i, kind in enumerate(kinds)]
        bots: dict[str, Bot] = {
            p: make_bot(k, p, random.Random(f"bench/{p}"))
            for p, k in zip(players, kinds, strict=True)
        }
        seat_of = {p: n for n, p in enumerate(players)}

        async def seat(player: str) -> None:
            await stub.SeatPlayer(
                table_pb2.SeatPlayerRequest(
                    table_id=table_id,
                    player_id=player,
                    seat=seat_of[player],
                    stack=BUY_IN,
                    is_bot=True,
                )
            )

        async def view(player: str) -> dict[str, Any]:
            got = await stub.GetView(table_pb2.GetViewRequest(table_id=table_id, player_id=player))
            result: dict[str, Any] = json.loads(got.view.view_json)
            return result

        for player in players:
            await seat(player)
        current = await view("")
        decisions = 0
        while True:
            for entry in current["table"]:
                if entry["stack"] == 0:  # busted: leaves and buys in again
                    await stub.UnseatPlayer(
                        table_pb2.UnseatPlayerRequest(table_id=table_id, player_id=entry["player"])
                    )
                    await seat(entry["player"])
                    current = await view("")
            hand = current.get("hand")
            over = hand is None or hand["status"] == "complete"
            if current["hand_number"] > hands or (current["hand_number"] == hands and over):
                return min(current["hand_number"], hands), decisions
            if over or hand is None or not hand["to_act"]:
                raise RuntimeError(f"the table stopped dealing: {current}")
            actor = hand["to_act"]
            action = bots[actor].decide(await view(actor))
            if action is None:
                raise RuntimeError(f"{actor} had nothing to do on its turn")
            response = await stub.Act(
                table_pb2.ActRequest(
                    table_id=table_id,
                    player_id=actor,
                    command_id=f"{actor}/{decisions}",
                    action_json=json.dumps(action),
                )
            )
            decisions += 1
            current = json.loads(response.view.view_json)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Naiko bots-only table benchmark")
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--bots", choices=sorted(KINDS), default="mixed")
    args, _ = parser.parse_known_args(argv)
    kinds = KINDS[args.bots]
    kafka = os.environ.get("CROUPIER_KAFKA_BOOTSTRAP", "127.0.0.1:9092")

    rows: list[tuple[str, int, int, float]] = []
    started = time.perf_counter()
    result = play_in_process(OPTIONS, kinds, args.hands, buy_in=BUY_IN, label="bench")
    rows.append(
        (
            "in process: adapter + bots",
            result["hands"],
            result["decisions"],
            time.perf_counter() - started,
        )
    )
    for name, bootstrap in (("service, in-memory log", None), ("service, Kafka log", kafka)):
        started = time.perf_counter()
        played, decisions = asyncio.run(play_service(bootstrap, kinds, args.hands))
        rows.append((f"{name} (gRPC)", played, decisions, time.perf_counter() - started))

    base = rows[0][1] / rows[0][3]
    print(f"Naiko, 6 bots ({args.bots}), blinds 5/10, buy-in {BUY_IN}, one run each\n")
    print("| mode | hands | decisions | seconds | hands/s | decisions/s | vs in process |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, played, decisions, seconds in rows:
        rate = played / seconds
        print(
            f"| {name} | {played} | {decisions} | {seconds:.2f} | {rate:.1f} | "
            f"{decisions / seconds:.0f} | {rate / base:.3f}x |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
