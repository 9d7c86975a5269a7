"""Gateway: an action through the gateway vs the same action straight to the table host.

500 bot players (250 heads-up poker tables) act over gRPC. Direct (the peer): each bot
calls the table host's `Act` naming its player, with a service credential, as the lobby's
bots do. Through the gateway: the same bot calls the gateway's `Act` with its own token;
the gateway checks the token and the rate limits and forwards to the host with its own
service credential. The host is served in this process (in-memory command log, so the
figure is the gateway's cost, not Kafka's). Two gateway rows: in the host's process on one
gRPC port (the embedded platform, `croupier run`), and `croupier serve gateway` in a
process of its own (as deployed). The bots read whose turn it is and the legal actions
from the host in process (not timed): the figure is `Act` alone. The three paths take
turns, round after round, so none is always measured on the oldest heap.

Goal (issue #20): p99 through the gateway at most 1.5x direct, throughput at least 0.8x.
Measured (2-core machine, 2026-12-07, quiet; three runs of 3 rounds x 20 actions per
table): the gateway as deployed 0.83x, 0.85x, 0.89x throughput and 1.23x, 1.08x, 1.05x
p99 (direct 963-1,118 actions/s): both goals met. In the host's process 0.62-0.66x and
1.19-1.53x: one Python process then does the bots', the host's and the gateway's gRPC
work, and the gateway's own Python is ~6-8% of it (py-spy); the rest is grpc.aio's second
hop. docs/gateway.md has the history of these figures.

    python -m benchmarks.gateway [--players 500] [--actions 20] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from croupier.game import ClockSettings
from croupier.gateway.adapters.lobby import GrpcLobby
from croupier.gateway.adapters.tables import GrpcTables
from croupier.gateway.adapters.tournaments import GrpcTournaments
from croupier.gateway.adapters.wallet import GrpcWallet
from croupier.gateway.bootstrap import build_gateway
from croupier.gateway.core.rate_limits import RateLimit
from croupier.gateway.service.limits import GatewayLimits
from croupier.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from croupier.kit.auth import issue_token, new_key_set
from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.channels import ServiceChannel
from croupier.kit.server import ServiceHost
from croupier.kit.service_auth import ServiceCredential
from croupier.kit.settings import ServerSettings
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.bootstrap import table_service
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.v1 import table_pb2, table_pb2_grpc
from tests.support.cli import serving_port

HOUR = ClockSettings(turn_ms=3_600_000, reconnect_ms=3_600_000)
PLAYER_KEYS, SERVICE_KEYS = new_key_set("bench-players"), new_key_set("bench-services")
# 500 bots share one address here: the address limit is for a real deployment's clients.
UNLIMITED = GatewayLimits(
    per_player=RateLimit(rate=100_000, burst=100_000),
    per_address=RateLimit(rate=100_000, burst=100_000),
)
Act = Callable[[str, str, str, str], Awaitable[Any]]  # table, player, command id, action
CROUPIER = Path(sys.executable).parent / "croupier"
PATHS = ("direct", "gateway", "gateway, own process")


def _bot_action(host: TableHost, table_id: str, rng: random.Random) -> tuple[str, str] | None:
    public = dict(host.view(table_id, "").view)
    hand = public.get("hand") or {}
    player = hand.get("to_act")
    if player is None:
        return None
    legal = (dict(host.view(table_id, player).view).get("hand") or {}).get("legal") or {}
    choices = [a for a in ("check", "call") if a in legal.get("actions", ())] or ["fold"]
    return player, json.dumps({"action": rng.choice(choices)})


async def _drive(
    host: TableHost,
    table_id: str,
    act: Act,
    actions: int,
    latencies: list[float],
    seed: int,
    tag: str,
) -> None:
    rng = random.Random(seed)
    for number in range(actions):
        move = _bot_action(host, table_id, rng)
        if move is None:
            await asyncio.sleep(0.001)  # between hands
            continue
        started = time.perf_counter()
        await act(table_id, move[0], f"{tag}{seed}-{number}", move[1])
        latencies.append(time.perf_counter() - started)


@contextlib.asynccontextmanager
async def gateway_process(services_address: str) -> AsyncIterator[str]:
    """`croupier serve gateway` in a process of its own, as deployed (its own pods), in
    front of the services at `services_address`; its gRPC address. Stopped at the end."""
    unlimited = str(100_000)
    env = dict(os.environ)
    env.update(
        CROUPIER_AUTH_KEYS=PLAYER_KEYS.format(),
        CROUPIER_SERVICE_KEYS=SERVICE_KEYS.format(),
        CROUPIER_TABLE_ADDRESS=services_address,
        CROUPIER_LOBBY_ADDRESS=services_address,
        CROUPIER_WALLET_ADDRESS=services_address,
        CROUPIER_TOURNAMENT_ADDRESS=services_address,
        CROUPIER_GRPC_HOST="127.0.0.1",
        CROUPIER_GRPC_PORT="0",
        CROUPIER_METRICS_PORT="0",
        CROUPIER_GATEWAY_HTTP_PORT="0",
        CROUPIER_GATEWAY_PLAYER_RATE=unlimited,
        CROUPIER_GATEWAY_PLAYER_BURST=unlimited,
        CROUPIER_GATEWAY_ADDRESS_RATE=unlimited,
        CROUPIER_GATEWAY_ADDRESS_BURST=unlimited,
    )
    process = await asyncio.create_subprocess_exec(
        str(CROUPIER), "serve", "gateway", env=env, stderr=asyncio.subprocess.PIPE
    )
    drain: asyncio.Task[None] | None = None
    try:
        port = await serving_port(process, "croupier serve gateway")
        assert process.stderr is not None
        drain = asyncio.create_task(_drain(process.stderr))  # its logs never fill the pipe
        yield f"127.0.0.1:{port}"
    finally:
        if process.returncode is None:
            process.terminate()
        await process.wait()
        if drain is not None:
            await drain


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.readline():
        pass


def _figures(latencies: list[float], elapsed: float) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "actions": len(ordered),
        "throughput": len(ordered) / elapsed,
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[int(len(ordered) * 0.99)] * 1000,
    }


async def measure(players: int, actions: int, rounds: int) -> dict[str, dict[str, float]]:
    bus = InMemoryBus()
    await bus.start()
    host = TableHost(engines=load_engines(), command_log=InMemoryCommandLog(), publisher=bus)
    await host.start()
    server: ServiceHost | None = None

    def own() -> str:
        return f"127.0.0.1:{server.port if server else 0}"

    credential = ServiceCredential(SERVICE_KEYS, "gateway")
    lobby, tables = GrpcLobby(own, credential), GrpcTables(own, credential)
    wallet, tournaments = GrpcWallet(own, credential), GrpcTournaments(own, credential)
    remotes = (lobby, tables, wallet, tournaments)
    wired = build_gateway(
        key_set=PLAYER_KEYS,
        lobby=lobby,
        tables=tables,
        wallet=wallet,
        tournaments=tournaments,
        http_host="127.0.0.1",
        http_port=0,
        limits=UNLIMITED,
    )
    server = ServiceHost(
        settings=ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0),
        services=[table_service(host), wired.service],
        serve_metrics_endpoint=False,
        service_keys=SERVICE_KEYS,
    )
    await server.start()
    direct = ServiceChannel(own(), ServiceCredential(SERVICE_KEYS, "bots"))
    players_channel = ServiceChannel(own(), None)
    try:
        table_ids = []
        for number in range(players // 2):
            table_id = await host.open_table("poker", {"blinds": [1, 2]}, HOUR)
            for seat in range(2):
                await host.seat(table_id, f"t{number}p{seat}", seat, 1_000_000)
            table_ids.append(table_id)
        now = time.time()
        tokens = {
            f"t{n}p{s}": "Bearer "
            + issue_token(PLAYER_KEYS, f"t{n}p{s}", now=now, ttl_seconds=3600)
            for n in range(players // 2)
            for s in range(2)
        }
        host_stub = direct.stub(table_pb2_grpc.TableEngineStub)
        gateway_stub = players_channel.stub(gateway_pb2_grpc.GatewayStub)

        async def act_direct(table_id: str, player: str, command_id: str, action: str) -> Any:
            return await host_stub.Act(
                table_pb2.ActRequest(
                    table_id=table_id, player_id=player, command_id=command_id, action_json=action
                )
            )

        def through(stub: Any) -> Act:
            async def act(table_id: str, player: str, command_id: str, action: str) -> Any:
                request = gateway_pb2.ActRequest(
                    table_id=table_id, command_id=command_id, action_json=action
                )
                metadata = (("authorization", tokens[player]),)
                return await stub.Act(request, metadata=metadata)

            return act

        latencies: dict[str, list[float]] = {path: [] for path in PATHS}
        elapsed = dict.fromkeys(PATHS, 0.0)

        async def phase(path: str, act: Act, tag: str) -> None:
            started = time.perf_counter()
            await asyncio.gather(
                *(
                    _drive(host, table_id, act, actions, latencies[path], seed, tag)
                    for seed, table_id in enumerate(table_ids)
                )
            )
            elapsed[path] += time.perf_counter() - started

        async with gateway_process(own()) as address:
            own_channel = ServiceChannel(address, None)
            try:
                own_stub = own_channel.stub(gateway_pb2_grpc.GatewayStub)
                acts = dict(
                    zip(PATHS, (act_direct, through(gateway_stub), through(own_stub)), strict=True)
                )
                # The paths take turns, round after round: the host's heap and its tables'
                # logs grow as the run goes on, and a path measured always last would pay
                # for it alone.
                for turn in range(rounds):
                    for number, path in enumerate(PATHS):
                        await phase(path, acts[path], f"r{turn}p{number}-")
            finally:
                await own_channel.close()
        return {path: _figures(latencies[path], elapsed[path]) for path in PATHS}
    finally:
        await direct.close()
        await players_channel.close()
        await server.stop()
        for remote in remotes:
            await remote.close()
        await host.stop()
        await bus.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--actions", type=int, default=20, help="actions per table a turn")
    parser.add_argument("--rounds", type=int, default=3, help="turns each path takes")
    args, _ = parser.parse_known_args()
    results = asyncio.run(measure(args.players, args.actions, args.rounds))
    print(f"Act round trip, {args.players} bot players at {args.players // 2} heads-up poker")
    print("tables, closed loop (in-memory command log); direct, the gateway in the host's")
    print("process and in a process of its own (`croupier serve gateway`, as deployed), taking")
    print(f"turns for {args.rounds} rounds of {args.actions} actions per table")
    print()
    print("| path | actions | actions/s | p50 ms | p99 ms |")
    print("|---|---:|---:|---:|---:|")
    for name, r in results.items():
        print(
            f"| {name} | {r['actions']:.0f} | {r['throughput']:.0f} "
            f"| {r['p50_ms']:.1f} | {r['p99_ms']:.1f} |"
        )
    direct = results["direct"]
    for name in ("gateway", "gateway, own process"):
        gateway = results[name]
        print(
            f"\n{name} / direct: p99 {gateway['p99_ms'] / direct['p99_ms']:.2f}x (goal <= 1.5x), "
            f"throughput {gateway['throughput'] / direct['throughput']:.2f}x (goal >= 0.8x)"
        )


if __name__ == "__main__":
    main()
