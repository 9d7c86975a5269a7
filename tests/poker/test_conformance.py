"""Conformance vectors (public examples + our own) replayed through `run_scenario`.

Compared the way ../shared/conformance/check.py compares: exact JSON values of the keys
status, stacks, board, pots, returned, winnings (or the error's action index).
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from croupier.kit.scenario import MalformedScenario
from croupier.poker.conformance import run_scenario

VECTORS = pathlib.Path(__file__).parent / "vectors"
NAMES = sorted(p.name[:-5] for p in VECTORS.glob("*.json") if not p.name.endswith(".expected.json"))
KEYS = ("status", "stacks", "board", "pots", "returned", "winnings")
ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", NAMES)
def test_vector(name: str) -> None:
    document = json.loads((VECTORS / f"{name}.json").read_text())
    expected = json.loads((VECTORS / f"{name}.expected.json").read_text())
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
    ../shared/conformance/check.py runs the public examples and the unseen vectors."""
    paths = [str(VECTORS / f"{name}.json") for name in NAMES]
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
    for name, out in zip(NAMES, lines, strict=True):
        expected = json.loads((VECTORS / f"{name}.expected.json").read_text())
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
