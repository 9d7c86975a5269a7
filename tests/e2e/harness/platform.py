"""The whole platform for one run: its own broker, every service as its own process on the
real PostgreSQL (schemas named after the run, dropped at the end), the keys the gateway
signs players' tokens with, and the stop that leaves nothing running (checked)."""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]

from croupier.kit.auth import KeySet, issue_token
from tests.e2e.harness.broker import OwnBroker
from tests.e2e.harness.network import TOXICS, Toxiproxy
from tests.e2e.harness.processes import (
    CROUPIER,
    ServiceProcess,
    platform_processes,
)


@dataclass
class Platform:
    run_id: str
    folder: Path
    postgres_dsn: str
    broker: OwnBroker
    services: dict[str, ServiceProcess]  # in their start order
    player_keys: KeySet
    service_keys: KeySet
    network: Toxiproxy | None

    def token(self, player: str, ttl_seconds: int = 3600) -> str:
        """A player's dev token, signed with the gateway's key (as `croupier token` does)."""
        return issue_token(self.player_keys, player, now=time.time(), ttl_seconds=ttl_seconds)

    @property
    def gateway(self) -> str:
        return self.services["gateway"].address

    def tables(self) -> list[str]:
        """The table-engine processes (each game's replicas)."""
        return [name for name, process in self.services.items() if process.service == "table"]

    def rss_mb(self, names: Iterable[str]) -> float:
        """The resident memory of the named processes running now, together (one being
        restarted counts nothing)."""
        total = 0.0
        for name in names:
            pid = self.services[name].pid
            try:
                status = Path(f"/proc/{pid}/status").read_text() if pid else ""
            except OSError:
                continue  # it exited meanwhile
            for line in status.splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        return total

    async def sample_memory(
        self, names: list[str], clock: Callable[[], float], points: list[tuple[float, float]]
    ) -> None:
        """(clock(), `rss_mb(names)`) into `points` each second, until cancelled."""
        while True:
            points.append((clock(), self.rss_mb(names)))
            await asyncio.sleep(1.0)

    def schema(self, service: str) -> str:
        return f"{self.run_id}_{service}"

    def strike(self, target: str) -> tuple[str, float]:
        """The fault on `target`: a toxic on the network to the broker for its time, or
        SIGKILL and a restart; its kind and the seconds until the target was back."""
        if target in TOXICS:
            assert self.network is not None, "network faults need start_platform(network=True)"
            return f"toxic {target}", self.network.degrade(target)
        return "sigkill+restart", self.restart(target)

    def restart(self, name: str) -> float:
        """SIGKILL `name` and start it again; the seconds until it served again."""
        began = time.monotonic()
        if name == "broker":
            self.broker.kill()
            self.broker.start()
        else:
            process = self.services[name]
            process.kill()
            process.start()
            process.wait_ready()
        return time.monotonic() - began

    def stop(self) -> list[str]:
        """Every service drained (SIGTERM, the reverse order of their start), then the
        broker; the names of whatever is still running afterwards (should be none)."""
        for process in reversed(self.services.values()):
            process.stop()
        self.broker.stop()
        if self.network is not None:
            self.network.stop()
        left = [name for name, process in self.services.items() if process.alive()]
        if self.network is not None and self.network.pid is not None:
            left.append("toxiproxy")
        return left + (["broker"] if self.broker.pid is not None else [])

    async def drop_schemas(self) -> None:
        connection = await asyncpg.connect(self.postgres_dsn)
        try:
            for service in ("wallet", "tournament", "lobby"):
                await connection.execute(f'DROP SCHEMA IF EXISTS "{self.schema(service)}" CASCADE')
        finally:
            await connection.close()


def _keys(kid: str) -> KeySet:
    return KeySet(keys={kid: secrets.token_urlsafe(48)}, signing_kid=kid)


# A one-broker cluster: one copy of each partition.
ONE_BROKER = ("--replication-factor", "1", "--min-insync-replicas", "1")


def _ensure_topics(bootstrap: str, games: tuple[str, ...]) -> None:
    """Each game's command-log and snapshot topics (what `croupier kafka ensure-topics`
    makes for the chart's per-game table services), on the run's one broker."""
    subprocess.run(
        [CROUPIER, "kafka", "ensure-topics", "--games", ",".join(games), *ONE_BROKER],
        env=os.environ | {"CROUPIER_KAFKA_BOOTSTRAP": bootstrap},
        check=True,
        capture_output=True,
    )


def start_platform(
    folder: Path,
    run_id: str,
    postgres_dsn: str,
    *,
    games: tuple[str, ...],
    network: bool = False,
    replicas: Mapping[str, int] | None = None,
    settings: Mapping[str, Mapping[str, str]] | None = None,
) -> Platform:
    """Broker first, then every service at once (each reaches the others lazily or in the
    background), the table-engine processes of each game of `games` (`replicas`: how many,
    1 unless named), ready when all serve; `settings`: environment a process takes over
    the run's (by process name)."""
    folder.mkdir(parents=True, exist_ok=True)
    broker = OwnBroker(folder / "kafka")
    proxy = Toxiproxy(folder, upstream_port=broker.port) if network else None
    if proxy is not None:
        broker.advertised_port = proxy.listen_port
    player_keys, service_keys = _keys("e2e-players"), _keys("e2e-services")
    services = platform_processes(
        folder=folder,
        run_id=run_id,
        kafka=broker.bootstrap,
        postgres_dsn=postgres_dsn,
        service_keys=service_keys.format(),
        auth_keys=player_keys.format(),
        games=games,
        replicas=replicas or {},
        settings=settings or {},
    )
    platform = Platform(
        run_id, folder, postgres_dsn, broker, services, player_keys, service_keys, proxy
    )
    try:
        if proxy is not None:
            proxy.start()
        broker.start()
        _ensure_topics(broker.bootstrap, games)
        for process in services.values():
            process.start()
        for process in services.values():
            process.wait_ready()
    except BaseException:
        platform.stop()
        # Called in a worker thread (run.py) or plainly: no event loop runs here.
        asyncio.run(platform.drop_schemas())
        raise
    return platform
