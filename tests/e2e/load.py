"""`make load` (issue #23): for each game, N concurrent bot tables through the gateway,
each player taking `--think` seconds over an action (a quick person's pace), N doubled
until the p99 of an acknowledged `Act` passes 50 ms in two steps in a row: the most
tables of a step within it is the game's limit on this machine. Per step the tables,
actions a second, p50/p99, the table host's memory per table, the CPU per 1,000 actions
of the platform and of the bots driving it, the busiest process, and where the slow
actions were slow (bots, gateway, host). Then ghz's single-method figures: the gateway's
reads against the same reads made on the table host and the lobby directly. Each game gets a
platform of its own (processes, the run's own broker, the real PostgreSQL); no faults. The
report goes to .local/load/<time>/report.md, with plots: Act latency and actions a second
over time, the table hosts' memory, the steps marked."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
import urllib.request
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from croupier.kit.service_auth import ServiceCredential
from tests.e2e.harness import ghz, scenarios
from tests.e2e.harness.cashier import deposit
from tests.e2e.harness.client import GatewayClient
from tests.e2e.harness.history import History
from tests.e2e.harness.platform import Platform, start_platform
from tests.e2e.harness.processes import table_process
from tests.e2e.harness.report import Memory, percentile, write_plots
from tests.e2e.harness.run import DEPOSIT
from tests.support.paths import ROOT

P99_LIMIT_MS = 50.0
_TICKS = os.sysconf("SC_CLK_TCK")
_PLANS: dict[str, Callable[[str, int], scenarios.TablePlan]] = {
    "poker": lambda name, actions: scenarios.cash_poker(
        name, tuple(f"{name}p{j}" for j in range(3)), actions
    ),
    # Its players stop mid-game and stay: leaving would settle the game from gnubg's
    # evaluation, and whole games make a step last minutes. The table's clock plays on.
    "backgammon": lambda name, actions: replace(
        scenarios.backgammon_money(name, (f"{name}a", f"{name}b"), actions), stay=True
    ),
    "rummy": lambda name, actions: scenarios.gin_rummy(name, (f"{name}a", f"{name}b"), actions),
    "joker": lambda name, actions: scenarios.joker(
        name, tuple(f"{name}p{j}" for j in range(4)), actions
    ),
}
_PLAYED_FOR_MONEY = {"poker", "backgammon"}  # rummy for the table's chips, Joker for points
# A load measures capacity: the gateway's per-player limit (tested on its own) would cap
# ghz, whose callers all carry one player's token.
_UNLIMITED = {
    "gateway": {
        "CROUPIER_GATEWAY_PLAYER_RATE": "100000",
        "CROUPIER_GATEWAY_PLAYER_BURST": "100000",
    }
}


@dataclass(frozen=True)
class Step:
    game: str
    tables: int
    actions: int
    seconds: float
    p50_ms: float
    p99_ms: float
    memory_per_table_kib: float
    cpu_seconds: dict[str, float]  # by process of the platform (services, broker)
    bots_cpu_seconds: float  # this process: the bots and their gRPC client
    refused: int  # tables whose scenario ended in a refusal
    slow: dict[str, int]  # Acts over 50 ms: "client", and as the gateway and host timed them

    def row(self) -> str:
        per_thousand = 1000 / max(self.actions, 1)
        busiest = max(self.cpu_seconds, key=lambda name: self.cpu_seconds[name])
        return (
            f"| {self.game} | {self.tables} | {self.actions / self.seconds:.0f} | "
            f"{self.p50_ms:.1f} | {self.p99_ms:.1f} | {self.memory_per_table_kib:.0f} KiB | "
            f"{sum(self.cpu_seconds.values()) * per_thousand:.1f} s | "
            f"{self.bots_cpu_seconds * per_thousand:.1f} s | "
            f"{busiest} {self.cpu_seconds[busiest] / self.seconds:.2f} | "
            f"{self.slow['client']} / {self.slow['gateway']} / {self.slow['host']} | "
            f"{self.refused} |"
        )


def slow_acts(metrics_text: str, service: str) -> tuple[int, int]:
    """(Act calls, those over 50 ms) in a process's `grpc_server_handling_seconds` of
    `service`'s Act: where the slow actions a client sees were slow already."""
    calls = within = 0.0
    for family in text_string_to_metric_families(metrics_text):
        if family.name != "grpc_server_handling_seconds":
            continue
        for sample in family.samples:
            labels = sample.labels
            if labels.get("grpc_service") != service or labels.get("grpc_method") != "Act":
                continue
            if sample.name.endswith("_count"):
                calls += sample.value
            elif sample.name.endswith("_bucket") and float(labels["le"]) == P99_LIMIT_MS / 1000:
                within += sample.value
    return int(calls), int(calls - within)


def _slow_acts_of(platform: Platform, name: str, service: str) -> tuple[int, int]:
    address = f"http://127.0.0.1:{platform.services[name].metrics_port}/metrics"
    with urllib.request.urlopen(address, timeout=5) as answer:
        return slow_acts(answer.read().decode(), service)


def _pid(platform: Platform, name: str) -> int:
    pid = platform.broker.pid if name == "broker" else platform.services[name].pid
    assert pid is not None
    return pid


def _cpu_seconds(platform: Platform) -> dict[str, float]:
    """User and system CPU of each process of the platform so far, the broker's too."""
    used = {}
    for name in [*platform.services, "broker"]:
        fields = Path(f"/proc/{_pid(platform, name)}/stat").read_text().rsplit(")", 1)[1].split()
        used[name] = (int(fields[11]) + int(fields[12])) / _TICKS
    return used


@dataclass
class _Game:
    """One game's steps so far: its host's memory at the start and the tables it took."""

    name: str
    baseline_mb: float
    opened: int = 0


async def _fund(platform: Platform, players: list[str], game: str) -> None:
    """The players' USD, where the game's tables buy in with money."""
    if game in _PLAYED_FOR_MONEY:
        address = platform.services["wallet"].address
        await deposit(address, platform.service_keys, dict.fromkeys(players, DEPOSIT), "USD")


async def _step(
    platform: Platform, history: History, game: _Game, tables: int, actions: int, think: float
) -> Step:
    plans = [
        _PLANS[game.name](f"l{game.name[:2]}{uuid.uuid4().hex[:6]}", actions) for _ in range(tables)
    ]
    await _fund(platform, [p for plan in plans for p in plan.players], game.name)
    client = GatewayClient(platform.gateway, history, platform.token)
    host = table_process(game.name)
    at_gateway = partial(_slow_acts_of, platform, "gateway", "croupier.gateway.v1.Gateway")
    at_host = partial(_slow_acts_of, platform, host, "croupier.table.v1.TableEngine")
    gateway_before, host_before = at_gateway(), at_host()
    cpu, bots_cpu, began = _cpu_seconds(platform), time.process_time(), history.now()
    try:
        outcomes = await asyncio.gather(
            *(scenarios.play_table(client, plan, 0, think) for plan in plans)
        )
    finally:
        await client.close()
    acts = [c.latency_ms for c in history.acknowledged("Act") if c.at >= began]
    slow = {
        "client": sum(1 for latency in acts if latency > P99_LIMIT_MS),
        "gateway": at_gateway()[1] - gateway_before[1],
        "host": at_host()[1] - host_before[1],
    }
    game.opened += tables
    grown = platform.rss_mb([table_process(game.name)]) - game.baseline_mb
    return Step(
        game.name,
        tables,
        len(acts),
        history.now() - began,
        percentile(acts, 0.5),
        percentile(acts, 0.99),
        grown * 1024 / game.opened,  # the host keeps the tables it had
        {name: seconds - cpu[name] for name, seconds in _cpu_seconds(platform).items()},
        time.process_time() - bots_cpu,
        sum(1 for outcome in outcomes if outcome.error),
        slow,
    )


async def _single_methods(platform: Platform, game: str) -> list[ghz.MethodFigures]:
    """ghz on the gateway's reads and the same reads made directly on the service behind,
    a table of `game` open with its players seated (the view read is its first player's)."""
    plan = _PLANS[game](f"lg{uuid.uuid4().hex[:6]}", 0)
    player = plan.players[0]
    # Funded whatever the game: GetBalance reads the first player's USD account.
    address = platform.services["wallet"].address
    await deposit(address, platform.service_keys, dict.fromkeys(plan.players, DEPOSIT), "USD")
    client = GatewayClient(platform.gateway, History(), platform.token)
    outcome = scenarios.TableOutcome(plan)
    try:
        await scenarios.seat(client, plan, outcome)
    finally:
        await client.close()
    as_player = {"authorization": f"Bearer {platform.token(player)}"}
    as_service = {
        "authorization": ServiceCredential(platform.service_keys, "e2e-load").authorization()
    }
    view = {"table_id": outcome.table_id, "view_format": "VIEW_FORMAT_JSON"}
    loads = [
        ghz.MethodLoad(
            "gateway: a player's table view",
            platform.gateway,
            "croupier.gateway.v1.Gateway/GetTableView",
            view,
            as_player,
        ),
        ghz.MethodLoad(
            "table host directly",
            platform.services[table_process(game)].address,
            "croupier.table.v1.TableEngine/GetView",
            view | {"player_id": player},
            as_service,
        ),
        ghz.MethodLoad(
            "gateway: the lobby's tables",
            platform.gateway,
            "croupier.gateway.v1.Gateway/ListTables",
            {},
            as_player,
        ),
        ghz.MethodLoad(
            "lobby directly",
            platform.services["lobby"].address,
            "croupier.lobby.v1.Lobby/ListTables",
            {"player_id": player},
            as_service,
        ),
        ghz.MethodLoad(
            "gateway: a balance (wallet)",
            platform.gateway,
            "croupier.gateway.v1.Gateway/GetBalance",
            {"currency": "USD"},
            as_player,
        ),
    ]
    protoset = ghz.compile_protoset(platform.folder / "croupier.protoset")
    figures = []
    for load in loads:
        figures.append(await asyncio.to_thread(ghz.measure, load, protoset))
        print(figures[-1].row(), flush=True)
    return figures


@dataclass(frozen=True)
class _Options:
    games: list[str]
    actions: int
    think: float
    most: int


async def _game_steps(
    platform: Platform,
    history: History,
    name: str,
    options: _Options,
    marks: list[tuple[float, str]],
) -> AsyncIterator[Step]:
    """`name`'s steps on `platform`, 1, 2, 4, ... tables (each marked where it began),
    until two steps in a row pass the limit: a step's p99 of a few hundred actions is
    nearly its slowest, so one pause can fail one step alone."""
    game = _Game(name, platform.rss_mb([table_process(name)]))
    # Warm-up (first calls, the broker's first appends), not reported.
    await _step(platform, history, game, 1, options.actions, options.think)
    tables, over = 1, 0
    while tables <= options.most and over < 2:
        marks.append((history.now(), f"{name} {tables}"))
        step = await _step(platform, history, game, tables, options.actions, options.think)
        yield step
        over = over + 1 if step.p99_ms > P99_LIMIT_MS else 0
        tables *= 2


async def load(folder: Path, dsn: str, options: _Options) -> Path:
    """Each game on a platform of its own: the tables a game leaves open (their clocks
    play on) must not load the next game's steps."""
    history, steps, marks = History(), list[Step](), list[tuple[float, str]]()
    memory: list[tuple[float, float]] = []
    single: list[ghz.MethodFigures] = []
    left: list[str] = []
    for name in options.games:
        platform = await asyncio.to_thread(
            partial(
                start_platform,
                folder / name,
                f"load_{uuid.uuid4().hex[:8]}",
                dsn,
                games=(name,),
                settings=_UNLIMITED,
            )
        )
        sampler = asyncio.create_task(
            platform.sample_memory(platform.tables(), history.now, memory)
        )
        try:
            async for step in _game_steps(platform, history, name, options, marks):
                steps.append(step)
                print(step.row(), flush=True)
            if name == options.games[-1]:
                single = await _single_methods(platform, name)
        finally:
            sampler.cancel()
            left += await asyncio.to_thread(platform.stop)
            await platform.drop_schemas()
    return _write_report(folder, options, steps, single, history, marks, memory, left)


def limits(steps: list[Step], games: list[str]) -> list[str]:
    """Each game's limit: its most tables in a step within 50 ms at p99."""
    lines = []
    for game in games:
        within = [s for s in steps if s.game == game and s.p99_ms <= P99_LIMIT_MS]
        if not within:
            lines.append(f"- {game}: p99 over {P99_LIMIT_MS:.0f} ms from the first table")
            continue
        best = within[-1]
        passed = any(s.game == game and s.p99_ms > P99_LIMIT_MS for s in steps)
        lines.append(
            f"- {game}: {best.tables} tables{'' if passed else ' (or more: never passed)'}, "
            f"{best.actions / best.seconds:.0f} actions/s, p99 {best.p99_ms:.1f} ms"
        )
    return lines


def _write_report(
    folder: Path,
    options: _Options,
    steps: list[Step],
    single: list[ghz.MethodFigures],
    history: History,
    marks: list[tuple[float, str]],
    memory: list[tuple[float, float]],
    left: list[str],
) -> Path:
    write_plots(folder, history.acknowledged("Act"), marks, Memory(memory, "the table hosts'"))
    report = folder / "report.md"
    report.write_text(
        "\n".join(
            [
                "# Load: bot tables through the gateway, doubled until Act's p99 passes 50 ms",
                "",
                f"One machine ({os.cpu_count()} cores), each game on a platform of its own, every "
                "service its own process, the "
                f"bots in one more. Each table's players take {options.think:g} s over an "
                "action on average (drawn between half and one and a half times that) "
                f"and make {options.actions} a step (at backgammon then stop mid-game "
                "and stay seated, the table's clock playing on); a bot "
                "reads two views per action (whose turn, his own) and then acts. Memory per "
                "table: the game's table-engine process's RSS growth over its start, per "
                "table it took so far. CPU per 1,000 acknowledged actions: the platform's "
                "processes' (services and broker), and the bots'; the busiest process: the "
                "one that used the most CPU in the step, in cores (CPU seconds a second); "
                "Acts over 50 ms as the bots, the gateway and the table host timed them (the "
                "servers' "
                "`grpc_server_handling_seconds`): where the slow ones were slow already. Left "
                f"running afterwards: {left or 'nothing'}.",
                "",
                "## Limits (the most tables of a step with p99 within 50 ms)",
                "",
                *limits(steps, options.games),
                "",
                "## Steps",
                "",
                "| game | tables | actions/s | p50 ms | p99 ms | memory / table | "
                "CPU / 1,000 | bots' CPU / 1,000 | busiest process, cores | "
                "Acts over 50 ms: client / gateway / host | tables refused |",
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
                *(step.row() for step in steps),
                "",
                "## Single methods (ghz, 20 callers on one connection, 10 s each)",
                "",
                "The calls in flight when ghz stops end `Unavailable` or `Canceled`.",
                "",
                *ghz.HEADER,
                *(figures.row() for figures in single),
                "",
                "## Act latency over time (the steps in red)",
                "",
                "![latency](latency.svg)",
                "",
                "## Actions a second",
                "",
                "![throughput](throughput.svg)",
                "",
                "## The table hosts' memory",
                "",
                "![memory](memory.svg)",
                "",
            ]
        )
    )
    history.write(folder)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", default="poker,backgammon,rummy,joker")
    parser.add_argument("--actions", type=int, default=20, help="per table and step")
    parser.add_argument("--think", type=float, default=1.0, help="seconds over each action")
    parser.add_argument("--most", type=int, default=512, help="the most tables a step opens")
    args = parser.parse_args()
    dsn = os.environ.get("CROUPIER_POSTGRES_DSN", "")
    if not dsn:
        print("CROUPIER_POSTGRES_DSN is not set: run through deploy/local/with-infra.sh")
        return 2
    folder = ROOT / ".local" / "load" / time.strftime("%Y%m%d-%H%M%S")
    options = _Options(args.games.split(","), args.actions, args.think, args.most)
    report = asyncio.run(load(folder, dsn, options))
    print(f"load: report {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
