"""Our own conformance vectors (tests/data/backgammon/vectors) through `croupier conformance`.

They are run the way the public checker runs the public ones (docs/conformance.md): all
files in one call (one JSON object per line), exact values for the keys a backgammon game is
judged on, and only the `action_index` when an illegal action is expected.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

from tests.support.paths import DATA

HERE = DATA / "backgammon" / "vectors"
KEYS = ["status", "winner", "result", "cube", "points", "payout"]


def test_own_vectors_through_the_cli() -> None:
    paths = sorted(p for p in HERE.glob("*.json") if not p.name.endswith(".expected.json"))
    assert len(paths) >= 7
    croupier = pathlib.Path(sys.executable).with_name("croupier")
    proc = subprocess.run(
        [str(croupier), "conformance", *map(str, paths)],
        capture_output=True,
        check=True,
        timeout=120,
    )
    lines = proc.stdout.decode().splitlines()
    assert len(lines) == len(paths)
    for path, line in zip(paths, lines, strict=True):
        out = json.loads(line)
        expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
        doc = json.loads(path.read_text())
        if isinstance(expected.get("error"), dict):
            assert out["error"]["action_index"] == expected["error"]["action_index"], path.name
            continue
        assert out["error"] is None, (path.name, out["error"])
        keys = KEYS + (["score"] if doc.get("mode") == "match" else [])
        for key in keys:
            if key in expected:
                assert out[key] == expected[key], (path.name, key)
