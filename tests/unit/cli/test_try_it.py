"""`croupier try` (the README's try-it step): one hand against two bots on a real
`croupier run`, started here as a subprocess on a free port, then `croupier verify` of
the history it wrote."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from tests.test_embedded import start_embedded

CROUPIER = Path(sys.executable).parent / "croupier"


def test_try_plays_one_hand_against_bots_on_the_embedded_platform(tmp_path: Path) -> None:
    platform, address = start_embedded(tmp_path)
    try:
        history_file = tmp_path / "hand.json"
        done = subprocess.run(
            [str(CROUPIER), "try", "--address", address, "--history", str(history_file)],
            capture_output=True,
            text=True,
            timeout=90,
        )
    finally:
        platform.send_signal(signal.SIGINT)
        platform.wait(timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Table ") and "you, bot1, bot2" in lines[0]
    assert "your cards: " in lines[1]
    finished = next(line for line in lines if " finished: " in line)
    history = json.loads(history_file.read_text("utf-8"))
    deltas = history["result"]["deltas"]
    # The hand shown is the first one dealt to you (with both bots, unless one went
    # broke in their heads-up hands before you sat).
    assert "you" in deltas and set(deltas) <= {"bot1", "bot2", "you"}
    assert sum(deltas.values()) == 0  # play chips: no rake, nothing lost
    assert f"Hand {history['hand_number']} finished: you {deltas['you']:+d}" in finished
    # The README's next step: the hand's deal checks out.
    verified = subprocess.run(
        [str(CROUPIER), "verify", str(history_file)], capture_output=True, text=True, timeout=60
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith("verified: poker table ")


def test_try_without_a_platform_says_how_to_start_one() -> None:
    done = subprocess.run(
        [str(CROUPIER), "try", "--address", "127.0.0.1:1"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "croupier try: nothing answers at 127.0.0.1:1; start the platform first "
        "(`make run` or `.venv/bin/croupier run`) or give its address"
    ]
