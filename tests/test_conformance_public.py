"""The shared public conformance examples, run by the shared checker through our command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECK = ROOT.parent / "shared" / "conformance" / "check.py"


def test_every_public_example_passes_check_py() -> None:
    assert CHECK.exists(), f"the shared checker is missing: {CHECK}"
    env = dict(os.environ, CROUPIER=str(Path(sys.executable).parent / "croupier"))
    completed = subprocess.run(
        [sys.executable, str(CHECK)], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    last = completed.stdout.strip().splitlines()[-1]
    passed, failed = (int(part.split()[0]) for part in last.split(","))
    assert failed == 0 and passed >= 34, last
