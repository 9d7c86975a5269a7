"""`croupier conformance` exit codes: 0 when understood, 2 with one line when malformed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CROUPIER = Path(sys.executable).parent / "croupier"


def run(tmp_path: Path, document: object) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document))
    return subprocess.run(
        [str(CROUPIER), "conformance", str(path)], capture_output=True, text=True, check=False
    )


def test_unknown_game_is_malformed(tmp_path: Path) -> None:
    completed = run(tmp_path, {"game": "chess"})
    assert completed.returncode == 2
    assert len(completed.stderr.strip().splitlines()) == 1
    assert "unknown game 'chess'" in completed.stderr


def test_a_value_of_the_wrong_shape_is_malformed_not_a_crash(tmp_path: Path) -> None:
    document = {
        "game": "poker",
        "variant": "nlhe",
        "blinds": [1, 2],
        "ante": 0,
        "players": [{"id": "p", "stack": 100}, {"id": "q", "stack": 100}],
        "button": "p",
        "hole_cards": {"p": 5, "q": ["As", "Ad"]},
        "deck": [],
        "actions": [],
    }
    completed = run(tmp_path, document)
    assert completed.returncode == 2, completed.stderr
    assert len(completed.stderr.strip().splitlines()) == 1
