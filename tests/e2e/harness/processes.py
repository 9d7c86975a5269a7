"""The platform as containers run it: one `croupier serve <service>` process per service,
the table host as one table-engine process per game (`table-poker`, ...: the chart's
`table-<game>` services, each on the game's own command-log topic, the callers routed by
`CROUPIER_TABLE_ADDRESS=game=address,...`), each on ports chosen once for the run (a
restarted process comes back where the others look for it), its log in the run folder,
ready when its gRPC health says SERVING."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.e2e.harness.ports import free_ports

CROUPIER = str(Path(sys.executable).parent / "croupier")
# The order they start in: what a service calls at start-up is up before it. "table"
# stands for the table-engine processes, one per game the run plays.
SERVICES = ("wallet", "table", "tournament", "lobby", "bots", "gateway")


def table_process(game: str) -> str:
    """The name of `game`'s table-engine process (the chart's `table-<game>`)."""
    return f"table-{game}"


def table_processes(game: str, replicas: int) -> list[str]:
    """`game`'s table-engine processes: `table-<game>`, then `table-<game>-2`, ... (the
    replicas of one service: one consumer group, the command log's partitions shared)."""
    first = table_process(game)
    return [first] + [f"{first}-{n}" for n in range(2, replicas + 1)]


def commands_topic(game: str) -> str:
    """`game`'s own command-log topic (docs/operations: one topic per game)."""
    return f"croupier.table.{game}.commands"


def start_order(games: tuple[str, ...], replicas: Mapping[str, int]) -> list[str]:
    """Every process's name in the order they start (`replicas`: a game's table-engine
    processes, 1 unless named)."""
    tables = [name for game in games for name in table_processes(game, replicas.get(game, 1))]
    return [name for service in SERVICES for name in (tables if service == "table" else [service])]


@dataclass
class ServiceProcess:
    name: str
    service: str  # what `croupier serve` runs
    port: int
    metrics_port: int
    env: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes] | None = None
    starts: int = field(default=0)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [CROUPIER, "serve", self.service],
                env=self.env,
                stdout=log,
                stderr=log,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self.starts += 1

    def wait_ready(self, timeout: float = 90.0) -> None:
        """Until its health check answers SERVING; fails if the process exits first."""
        deadline = time.monotonic() + timeout
        with grpc.insecure_channel(self.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            while time.monotonic() < deadline:
                assert self.process is not None
                if self.process.poll() is not None:
                    raise RuntimeError(
                        f"{self.name} exited with {self.process.returncode} before serving "
                        f"(log: {self.log})"
                    )
                try:
                    answer = health.Check(health_pb2.HealthCheckRequest(), timeout=1)
                    if answer.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                except grpc.RpcError:
                    pass
                time.sleep(0.2)
        raise RuntimeError(f"{self.name} not serving after {timeout:.0f} s (log: {self.log})")

    def kill(self) -> None:
        """The fault: SIGKILL, no draining."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self) -> int | None:
        """SIGTERM and wait for it to drain; its exit code (None: it had to be killed)."""
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else self.process.returncode
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


def platform_processes(
    *,
    folder: Path,
    run_id: str,
    kafka: str,
    postgres_dsn: str,
    service_keys: str,
    auth_keys: str,
    games: tuple[str, ...],
    replicas: Mapping[str, int],
    settings: Mapping[str, Mapping[str, str]],
) -> dict[str, ServiceProcess]:
    """Every service's process (not started), the table-engine processes of each game of
    `games` (`replicas`: how many, 1 unless named), wired to the others, the broker and the
    run's own schemas (`<run_id>_wallet`, ...); `settings`: environment a process takes
    over the defaults (by process name)."""
    names = start_order(games, replicas)
    ports = free_ports(2 * len(names) + 1)
    address = {name: f"127.0.0.1:{ports[i]}" for i, name in enumerate(names)}
    replicas_of = {game: table_processes(game, replicas.get(game, 1)) for game in games}
    tables = ",".join(
        f"{game}={'|'.join(address[name] for name in replicas_of[game])}" for game in games
    )
    common = {
        "CROUPIER_GRPC_HOST": "127.0.0.1",
        "CROUPIER_KAFKA_BOOTSTRAP": kafka,
        "CROUPIER_POSTGRES_DSN": postgres_dsn,
        "CROUPIER_SERVICE_KEYS": service_keys,
        "CROUPIER_LOG_LEVEL": "INFO",
        "CROUPIER_WALLET_ADDRESS": address["wallet"],
        "CROUPIER_TABLE_ADDRESS": tables,
        "CROUPIER_LOBBY_ADDRESS": address["lobby"],
        "CROUPIER_TOURNAMENT_ADDRESS": address["tournament"],
    }
    own: dict[str, dict[str, str]] = {
        "wallet": {
            "CROUPIER_WALLET_SCHEMA": f"{run_id}_wallet",
            "CROUPIER_WALLET_INSTANCE_ID": "e2e-wallet-0",
        },
        "tournament": {"CROUPIER_TOURNAMENT_SCHEMA": f"{run_id}_tournament"},
        "lobby": {"CROUPIER_LOBBY_SCHEMA": f"{run_id}_lobby"},
        "bots": {},
        # The client bots all come from 127.0.0.1: the address limit is the whole run's.
        "gateway": {
            "CROUPIER_AUTH_KEYS": auth_keys,
            "CROUPIER_GATEWAY_HTTP_PORT": str(ports[-1]),
            "CROUPIER_GATEWAY_ADDRESS_RATE": "100000",
            "CROUPIER_GATEWAY_ADDRESS_BURST": "100000",
        },
    }
    for game, replica_names in replicas_of.items():
        for name in replica_names:
            own[name] = {
                "CROUPIER_TABLE_WALLET": address["wallet"],
                "CROUPIER_TABLE_GAMES": game,
                "CROUPIER_TABLE_COMMANDS_TOPIC": commands_topic(game),
                "CROUPIER_TABLE_INSTANCE_ID": f"e2e-{name}",
            }
    base = {k: v for k, v in os.environ.items() if not k.startswith("CROUPIER_")}
    processes = {}
    for i, name in enumerate(names):
        port, metrics_port = ports[i], ports[len(names) + i]
        listen = {"CROUPIER_GRPC_PORT": str(port), "CROUPIER_METRICS_PORT": str(metrics_port)}
        processes[name] = ServiceProcess(
            name=name,
            service=name.split("-")[0],
            port=port,
            metrics_port=metrics_port,
            env=base | common | own[name] | dict(settings.get(name, {})) | listen,
            log=folder / f"{name}.log",
        )
    return processes
