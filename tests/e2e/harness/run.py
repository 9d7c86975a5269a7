"""One end-to-end run: the platform up (a table-engine process per game played), the
players funded, the tournaments created, every table and tournament played through the
gateway while the seeded faults strike, then the events read back, the checks, the report,
and everything stopped (checked: nothing left running) and the run's schemas dropped."""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from tests.e2e.harness import scenarios, tournaments
from tests.e2e.harness.cashier import deposit, fund_prizes
from tests.e2e.harness.checks import Finding, run_checks
from tests.e2e.harness.client import GatewayClient
from tests.e2e.harness.events import read_all
from tests.e2e.harness.faults import TARGETS, fault_plan, inject
from tests.e2e.harness.history import History
from tests.e2e.harness.network import TOXICS
from tests.e2e.harness.platform import start_platform
from tests.e2e.harness.processes import table_processes
from tests.e2e.harness.report import Memory, write_report

DEPOSIT = 5_000  # minor units of USD per player


@dataclass(frozen=True)
class Scenario:
    poker_tables: int = 2
    backgammon_tables: int = 2
    backgammon_series: int = 1  # to 5 points
    joker_tables: int = 1
    # Rummy 51 at tables of 4, with rebuys (the bots service's rummy policy).
    rummy_tournaments: int = 1
    rummy_players: int = 40
    sit_and_gos: int = 1  # Naiko, 6-max
    nlhe_tournaments: int = 1  # scheduled, 27 players at tables of 9
    spins: int = 1  # NLHE, 3 players, its prizes topped up by the prize fund
    actions: int = 150  # per table, before its players leave
    faults: int = 4
    fault_window: float = 40.0  # seconds over which the faults are spread
    fault_targets: tuple[str, ...] = TARGETS
    # Table-engine processes per game where more than one: poker's two replicas share its
    # command log's partitions, and a "table" fault may kill either.
    replicas: tuple[tuple[str, int], ...] = (("poker", 2),)

    def tables(self) -> list[scenarios.TablePlan]:
        plans = [
            scenarios.cash_poker(f"poker{i}", tuple(f"pk{i}p{j}" for j in range(3)), self.actions)
            for i in range(self.poker_tables)
        ]
        # A backgammon game is played to its end (leaving a game under way settles it from
        # gnubg's evaluation: another path, not this scenario's).
        plans += [
            scenarios.backgammon_money(f"bg{i}", (f"bg{i}a", f"bg{i}b"), 10_000)
            for i in range(self.backgammon_tables)
        ]
        plans += [
            scenarios.backgammon_series(f"series{i}", (f"bs{i}a", f"bs{i}b"), 10_000)
            for i in range(self.backgammon_series)
        ]
        plans += [
            scenarios.joker(f"joker{i}", tuple(f"jk{i}p{j}" for j in range(4)), self.actions)
            for i in range(self.joker_tables)
        ]
        return plans

    def tournaments(self) -> list[tournaments.TournamentPlan]:
        plans = [
            tournaments.rummy51_tournament(
                f"rummy{i}", tuple(f"rt{i}p{j}" for j in range(self.rummy_players)), 2
            )
            for i in range(self.rummy_tournaments)
        ]
        plans += [
            tournaments.naiko_sit_and_go(f"sng{i}", tuple(f"sg{i}p{j}" for j in range(6)))
            for i in range(self.sit_and_gos)
        ]
        plans += [
            tournaments.nlhe_tournament(f"mtt{i}", tuple(f"mt{i}p{j}" for j in range(27)))
            for i in range(self.nlhe_tournaments)
        ]
        plans += [
            tournaments.spin(f"spin{i}", tuple(f"sp{i}p{j}" for j in range(3)))
            for i in range(self.spins)
        ]
        return plans

    def games(self) -> tuple[str, ...]:
        """The games played: a table-engine process each."""
        played = {t.game for t in self.tables()} | {t.game for t in self.tournaments()}
        return tuple(sorted(played))


@dataclass(frozen=True)
class RunResult:
    seed: int
    folder: Path
    findings: list[Finding]
    left_running: list[str]

    @property
    def passed(self) -> bool:
        return all(f.ok for f in self.findings) and not self.left_running


async def run(seed: int, folder: Path, postgres_dsn: str, scenario: Scenario) -> RunResult:
    games, replicas = scenario.games(), dict(scenario.replicas)
    plan = fault_plan(
        seed,
        scenario.faults,
        scenario.fault_window,
        scenario.fault_targets,
        [name for game in games for name in table_processes(game, replicas.get(game, 1))],
    )
    print(f"e2e seed {seed}: faults {[(f.at, f.target) for f in plan]}; folder {folder}")
    run_id = f"e2e_{uuid.uuid4().hex[:10]}"
    network = any(target in TOXICS for target in scenario.fault_targets)
    platform = await asyncio.to_thread(
        partial(
            start_platform,
            folder,
            run_id,
            postgres_dsn,
            games=games,
            network=network,
            replicas=replicas,
        )
    )
    history = History()
    memory: list[tuple[float, float]] = []  # every service process's, together
    left: list[str] = []
    try:
        tables, cups = scenario.tables(), scenario.tournaments()
        players = [p for t in tables for p in t.players] + [p for c in cups for p in c.players]
        deposits = dict.fromkeys(players, DEPOSIT)
        wallet = platform.services["wallet"].address
        await deposit(wallet, platform.service_keys, deposits, "USD")
        fund = tournaments.spin_fund_needed(cups)
        if fund:
            await fund_prizes(wallet, platform.service_keys, fund, "USD")
        director = platform.services["tournament"].address
        cup_ids = [await tournaments.create(director, platform.service_keys, c) for c in cups]
        client = GatewayClient(platform.gateway, history, platform.token)
        sampler = asyncio.create_task(
            platform.sample_memory(list(platform.services), history.now, memory)
        )
        try:
            faults = asyncio.create_task(inject(platform, plan, history))
            played = asyncio.gather(
                *(
                    tournaments.play_tournament(client, cup, tid, seed)
                    for cup, tid in zip(cups, cup_ids, strict=True)
                )
            )
            outcomes = await asyncio.gather(
                *(scenarios.play_table(client, table, seed) for table in tables)
            )
            cup_outcomes = await played
            await faults
        finally:
            sampler.cancel()
            await client.close()
        events = await read_all(platform.broker.bootstrap)
        findings = await run_checks(
            dsn=postgres_dsn,
            schema=platform.schema("wallet"),
            history=history,
            events=events,
            outcomes=list(outcomes),
            tournaments=list(cup_outcomes),
            deposits=deposits,
            prize_fund=fund,
        )
        summary = {
            "tables": ", ".join(f"{o.plan.name} {o.actions} actions" for o in outcomes),
            "tournaments": ", ".join(
                f"{o.plan.name} {o.tables} tables {o.actions} actions" for o in cup_outcomes
            ),
            "events per topic": json.dumps(dict(sorted(events.per_topic.items()))),
            "service starts": ", ".join(f"{n} {p.starts}" for n, p in platform.services.items()),
        }
    finally:
        left = await asyncio.to_thread(platform.stop)
        await platform.drop_schemas()
    findings.append(Finding("nothing left running", not left, ", ".join(left) or "all stopped"))
    history.write(folder)
    report = write_report(
        folder,
        seed=seed,
        history=history,
        findings=findings,
        summary=summary,
        memory=Memory(memory, "every service process's"),
    )
    print(f"e2e seed {seed}: report {report}")
    return RunResult(seed, folder, findings, left)
