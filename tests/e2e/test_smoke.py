"""The harness cannot rot: the whole platform as processes on a broker of its own and the
real PostgreSQL, a cash poker table and a Joker table played through the gateway by client
bots with their own tokens, one game's table-engine process SIGKILLed and restarted
half-way, and every
check of a full run passing; nothing left running afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.harness.run import Scenario, run

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

TINY = Scenario(
    poker_tables=1,
    backgammon_tables=0,
    backgammon_series=0,
    joker_tables=1,
    rummy_tournaments=0,
    sit_and_gos=0,
    nlhe_tournaments=0,
    spins=0,
    actions=40,
    faults=1,
    fault_window=6.0,
    fault_targets=("table",),
)


async def test_a_tiny_run_with_a_table_engine_killed_passes_every_check(
    postgres_dsn: str, tmp_path: Path
) -> None:
    result = await run(seed=23, folder=tmp_path, postgres_dsn=postgres_dsn, scenario=TINY)
    failed = [f for f in result.findings if not f.ok]
    assert not failed, failed
    assert [f.check for f in result.findings if f.check == "no acknowledged action lost"]
    assert not result.left_running
    assert (tmp_path / "report.md").read_text().startswith("# End-to-end run, seed 23: PASSED")
    faults = (tmp_path / "faults.jsonl").read_text().splitlines()
    assert len(faults) == 1 and '"table-' in faults[0]  # table-poker or table-joker
    # The memory plot samples every service each second: a line with points on it.
    assert "<polyline points=" in (tmp_path / "memory.svg").read_text()
