"""`make load` (issue #23): for each game, N concurrent bot tables through the gateway,
N doubled until the p99 of an acknowledged `Act` passes 50 ms; per step the tables,
actions a second, p50/p99, the table host's memory per table and the platform's CPU per
1,000 actions. One platform (processes, the run's own broker, the real PostgreSQL) serves
every step; no faults. The report goes to .local/load/<time>/report.md."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from tests.e2e.harness import scenarios
from tests.e2e.harness.cashier import deposit
from tests.e2e.harness.client import GatewayClient
from tests.e2e.harness.history import History
from tests.e2e.harness.platform import Platform, start_platform
from tests.e2e.harness.processes import table_process
from tests.e2e.harness.report import percentile
from tests.e2e.harness.run import DEPOSIT
from tests.support.paths import ROOT

P99_LIMIT_MS = 50.0
_TICKS = os.sysconf("SC_CLK_TCK")
_PLANS: dict[str, Callable[[str, int], scenarios.TablePlan]] = {
    "poker": lambda name, actions: scenarios.cash_poker(
        name, tuple(f"{name}p{j}" for j in range(3)), actions
    ),
    "backgammon": lambda name, actions: scenarios.backgammon_money(
        name, (f"{name}a", f"{name}b"), 10_000
    ),
    "joker": lambda name, actions: scenarios.joker(
        name, tuple(f"{name}p{j}" for j in range(4)), actions
    ),
}


@dataclass(frozen=True)
class Step:
    game: str
    tables: int
    actions: int
    seconds: float
    p50_ms: float
    p99_ms: float
    table_rss_mb: float
    cpu_seconds: float

    def row(self, baseline_mb: float, opened: int) -> str:
        """`opened`: the tables the host was given so far (it keeps the ones left)."""
        per_table = (self.table_rss_mb - baseline_mb) / opened * 1024
        cpu = self.cpu_seconds / max(self.actions, 1) * 1000
        return (
            f"| {self.game} | {self.tables} | {self.actions / self.seconds:.0f} | "
            f"{self.p50_ms:.1f} | {self.p99_ms:.1f} | {per_table:.0f} KiB | {cpu:.1f} s |"
        )


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _cpu_seconds(platform: Platform) -> float:
    """User and system CPU of every service process so far."""
    total = 0
    for service in platform.services.values():
        assert service.process is not None
        fields = Path(f"/proc/{service.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / _TICKS


async def _step(platform: Platform, game: str, tables: int, actions: int) -> Step:
    plans = [_PLANS[game](f"l{game[:2]}{uuid.uuid4().hex[:6]}", actions) for _ in range(tables)]
    await deposit(
        platform.services["wallet"].address,
        platform.service_keys,
        {p: DEPOSIT for plan in plans for p in plan.players},
        "USD",
    )
    history = History()
    client = GatewayClient(platform.gateway, history, platform.token)
    cpu, began = _cpu_seconds(platform), time.monotonic()
    try:
        await asyncio.gather(*(scenarios.play_table(client, plan, 0) for plan in plans))
    finally:
        await client.close()
    acts = [c.latency_ms for c in history.acknowledged("Act")]
    table = platform.services[table_process(game)].process
    assert table is not None
    return Step(
        game,
        tables,
        len(acts),
        time.monotonic() - began,
        percentile(acts, 0.5),
        percentile(acts, 0.99),
        _rss_mb(table.pid),
        _cpu_seconds(platform) - cpu,
    )


async def load(folder: Path, dsn: str, games: list[str], actions: int, most: int) -> Path:
    platform = await asyncio.to_thread(
        partial(start_platform, folder, f"load_{uuid.uuid4().hex[:8]}", dsn, games=tuple(games))
    )
    rows: list[str] = []
    try:
        for game in games:
            table = platform.services[table_process(game)].process
            assert table is not None
            baseline, opened = _rss_mb(table.pid), 0
            await _step(platform, game, 1, actions)  # warm-up (first calls, JIT of the broker)
            opened += 1
            tables = 1
            while tables <= most:
                step = await _step(platform, game, tables, actions)
                opened += tables
                rows.append(step.row(baseline, opened))
                print(rows[-1], flush=True)
                if step.p99_ms > P99_LIMIT_MS:
                    break
                tables *= 2
    finally:
        left = await asyncio.to_thread(platform.stop)
        await platform.drop_schemas()
    report = folder / "report.md"
    report.write_text(
        "\n".join(
            [
                "# Load: bot tables through the gateway, doubled until Act's p99 passes 50 ms",
                "",
                f"One machine ({os.cpu_count()} cores, shared), every service its own process. "
                "Memory per table: the game's table-engine process's RSS growth over its "
                "start, per table seated so far in the game's steps; CPU: every service "
                "process's, per 1,000 "
                f"acknowledged actions. Left running afterwards: {left or 'nothing'}.",
                "",
                "| game | tables | actions/s | p50 ms | p99 ms | memory / table | CPU / 1,000 |",
                "| --- | --- | --- | --- | --- | --- | --- |",
                *rows,
                "",
            ]
        )
    )
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", default="poker,backgammon,joker")
    parser.add_argument("--actions", type=int, default=60, help="per table and step")
    parser.add_argument("--most", type=int, default=64, help="the most tables a step opens")
    args = parser.parse_args()
    dsn = os.environ.get("CROUPIER_POSTGRES_DSN", "")
    if not dsn:
        print("CROUPIER_POSTGRES_DSN is not set: run through deploy/local/with-infra.sh")
        return 2
    folder = ROOT / ".local" / "load" / time.strftime("%Y%m%d-%H%M%S")
    games = args.games.split(",")
    report = asyncio.run(load(folder, dsn, games, args.actions, args.most))
    print(f"load: report {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
