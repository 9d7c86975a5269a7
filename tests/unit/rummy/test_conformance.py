"""`croupier conformance` on rummy documents: our own vectors (tests/data/rummy/scenarios, built
by hand from seed 000 and the variants' rules), judged as the shared check.py judges, and
malformed documents (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from croupier.kit.scenario import MalformedScenario
from croupier.rummy.tools.conformance import run_scenario
from tests.support.paths import DATA

HERE = DATA / "rummy" / "scenarios"
CROUPIER = Path(sys.executable).parent / "croupier"
KEYS = ["status", "ending", "winner", "deadwood", "penalty", "chips_paid", "chips_won"]
SCENARIOS = sorted(p for p in HERE.glob("*.json") if not p.name.endswith(".expected.json"))


def _judge(out: dict[str, Any], expected: dict[str, Any]) -> None:
    if isinstance(expected.get("error"), dict):
        assert out["error"]["action_index"] == expected["error"]["action_index"]
        assert out["error"]["code"] == expected["error"]["code"]
        return
    assert out["error"] is None
    for key in KEYS:
        if key in expected:
            assert out[key] == expected[key], key


def test_scenarios_exist() -> None:
    assert len(SCENARIOS) >= 10


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    _judge(run_scenario(json.loads(path.read_text())), expected)


def test_command_line_runs_all_scenarios_as_json_lines() -> None:
    done = subprocess.run(
        [str(CROUPIER), "conformance", *map(str, SCENARIOS)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(SCENARIOS)
    for path, line in zip(SCENARIOS, lines, strict=True):
        expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
        _judge(json.loads(line), expected)


def _base() -> dict[str, Any]:
    return json.loads((HERE / "gin-knock-with-layoff.json").read_text())


@pytest.mark.parametrize(
    "change",
    [
        {"variant": "canasta"},
        {"players": ["a"]},
        {"dealer": "z"},
        {"hands": {"a": ["4h"]}},
        {"upcard": "1x"},
        {"stock": ["Qs", "ZZ"]},
        {"actions": [{"player": "a", "action": "discard", "card": "11h"}]},
        {"actions": [{"action": "pass"}]},
        {"options": {"round_fee": 20, "chip_ratio": 2, "chips": {"a": 5}}},
    ],
)
def test_malformed_documents_raise(change: dict[str, Any]) -> None:
    document = {**_base(), **change}
    with pytest.raises(MalformedScenario):
        run_scenario(document)


def test_malformed_document_exits_2_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**_base(), "upcard": "Zz"}))
    done = subprocess.run(
        [str(CROUPIER), "conformance", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1


def test_awaiting_action_reports_who_acts_and_what_is_legal() -> None:
    out = run_scenario({**_base(), "actions": _base()["actions"][:3]})
    assert out["status"] == "awaiting_action"
    assert out["to_act"] == "a"
    assert out["legal"] == {"actions": ["draw"], "draw_from": ["stock", "discard"]}
    assert out["ending"] is None and out["winner"] is None and out["penalty"] == {}
