"""The public conformance examples, kept in the repo as test data (tests/data/conformance/public/).

They are replayed by the project's own checker, `croupier conformance --check`
(docs/conformance.md, "Judging"). The shared checker `../shared/conformance/check.py`, which
may also run vectors the repo does not hold, runs in addition only where `../shared` sits
beside the repo: the repo's own copies are the requirement, and they must all be here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from croupier.cli.conformance import GAME_MODULES
from tests.support import paths

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = paths.PUBLIC
CROUPIER = Path(sys.executable).parent / "croupier"
SHARED = ROOT.parent / "shared" / "conformance"
EXAMPLES_PER_GAME = {"backgammon": 12, "joker": 10, "poker": 12, "tournament": 8}


def scenarios(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.json") if not p.name.endswith(".expected.json"))


def test_every_game_keeps_its_public_examples_in_the_repo() -> None:
    assert sorted(p.name for p in PUBLIC.iterdir()) == sorted(EXAMPLES_PER_GAME)
    for game, count in EXAMPLES_PER_GAME.items():
        paths = scenarios(PUBLIC / game)
        assert len(paths) == count, game
        for path in paths:
            assert path.with_name(path.stem + ".expected.json").is_file(), path


def test_every_public_example_in_the_repo_passes_our_checker() -> None:
    completed = subprocess.run(
        [str(CROUPIER), "conformance", "--check", str(PUBLIC)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    total = sum(EXAMPLES_PER_GAME.values())
    assert completed.stdout.splitlines()[-1:] == [f"{total} passed, 0 failed"], (
        completed.stdout + completed.stderr
    )
    assert completed.returncode == 0


if (SHARED / "check.py").is_file():
    # Only defined where ../shared sits beside the repo (a developer's or CI's checkout);
    # a lone clone has no shared checker to run, and the tests above are its requirement.

    def test_if_shared_is_beside_the_repo_its_copies_match_the_repo() -> None:
        for game in EXAMPLES_PER_GAME:
            theirs = {p.name: p.read_bytes() for p in (SHARED / game).glob("*.json")}
            ours = {p.name: p.read_bytes() for p in (PUBLIC / game).glob("*.json")}
            assert ours == theirs, f"{PUBLIC / game} differs from {SHARED / game}"

    def test_if_shared_is_beside_the_repo_its_check_py_passes_every_game() -> None:
        # No game named: check.py runs every folder beside it, each of which we must serve.
        games = sorted(d.name for d in SHARED.iterdir() if d.is_dir())
        assert set(games) <= set(GAME_MODULES)
        assert set(EXAMPLES_PER_GAME) <= set(games)
        completed = subprocess.run(
            [sys.executable, str(SHARED / "check.py")],
            cwd=ROOT,
            env=dict(os.environ, CROUPIER=str(CROUPIER)),
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
        assert completed.returncode == 0, completed.stdout + completed.stderr
        passed, failed = (
            int(part.split()[0]) for part in completed.stdout.split("\n")[-2].split(",")
        )
        assert failed == 0 and passed >= sum(EXAMPLES_PER_GAME.values()), completed.stdout


OWN = PUBLIC.parent / "own"
"""Examples the project wrote itself (tournament: #18), expectations worked out by hand
in the format of the shared README, replayed by the same checker."""


def test_our_own_tournament_examples_pass_our_checker() -> None:
    completed = subprocess.run(
        [str(CROUPIER), "conformance", "--check", str(OWN / "tournament")],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert completed.stdout.splitlines()[-1:] == ["3 passed, 0 failed"], completed.stdout
    assert completed.returncode == 0
