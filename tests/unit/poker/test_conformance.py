"""Conformance vectors (the public examples in tests/data/conformance/public/poker + our own in
tests/data/poker/vectors/) replayed through `run_scenario`.

Compared the way docs/conformance.md ("Judging") compares: exact JSON values of the keys
status, stacks, board, pots, returned, winnings (or the error's action index).
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import Any

import pytest

from croupier.kit.scenario import MalformedScenario
from croupier.poker.tools.conformance import run_scenario
from tests.support import paths
from tests.support.paths import ROOT

VECTORS = paths.DATA / "poker" / "vectors"
PUBLIC = paths.PUBLIC / "poker"
PATHS = sorted(
    (
        p
        for folder in (PUBLIC, VECTORS)
        for p in folder.glob("*.json")
        if not p.name.endswith(".expected.json")
    ),
    key=lambda p: p.name,
)
# An empty list would parametrise nothing and pass: 12 public examples + our own.
assert len(PATHS) >= 22, f"poker vectors missing: {len(PATHS)} found"
KEYS = ("status", "stacks", "board", "pots", "returned", "winnings")


def answer(path: pathlib.Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.with_name(f"{path.stem}.expected.json").read_text())
    return loaded


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_vector(path: pathlib.Path) -> None:
    document = json.loads(path.read_text())
    expected = answer(path)
    out = run_scenario(document)
    if isinstance(expected.get("error"), dict):
        assert out["error"] is not None
        assert out["error"]["action_index"] == expected["error"]["action_index"]
        assert out["board"] == expected["board"]
        assert out["status"] == expected["status"]
        return
    assert out["error"] is None
    keys = KEYS + (("destellos", "private") if document.get("variant") == "naiko" else ())
    for key in keys:
        if key in expected:
            assert json.dumps(out[key], sort_keys=True) == json.dumps(
                expected[key], sort_keys=True
            ), key


def test_vectors_pass_through_the_command() -> None:
    """All vectors in one `croupier conformance A.json B.json ...` call (JSON Lines), the way
    the public checker runs the public examples and the unseen vectors."""
    paths = [str(p) for p in PATHS]
    proc = subprocess.run(
        [sys.executable, "-m", "croupier.cli.main", "conformance", *paths],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == len(paths)
    for path, out in zip(PATHS, lines, strict=True):
        expected = answer(path)
        name = path.stem
        if isinstance(expected.get("error"), dict):
            assert out["error"]["action_index"] == expected["error"]["action_index"], name
        else:
            assert out["error"] is None, name
            assert out["stacks"] == expected["stacks"] and out["pots"] == expected["pots"], name


@pytest.mark.parametrize(
    "change",
    [
        {"variant": "stud"},
        {"blinds": [1]},
        {"button": "nobody"},
        {"hole_cards": {"a": ["Zz", "As"], "b": ["Kd", "Kc"]}},
        {"players": [{"id": "a", "stack": 0}, {"id": "b", "stack": 10}]},
        {"variant": "naiko"},  # without its carousel
    ],
)
def test_malformed_documents_raise(change: dict[str, object]) -> None:
    document = {
        "game": "poker",
        "variant": "nlhe",
        "blinds": [1, 2],
        "ante": 0,
        "players": [{"id": "a", "stack": 10}, {"id": "b", "stack": 10}],
        "button": "a",
        "hole_cards": {"a": ["As", "Ah"], "b": ["Kd", "Kc"]},
        "deck": ["2c", "3c", "4c", "5c", "6c"],
        "actions": [],
    }
    document.update(change)
    with pytest.raises(MalformedScenario):
        run_scenario(document)
