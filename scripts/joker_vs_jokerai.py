"""Cross-check our Joker hand scores against the open-source JokerAI engine.

JokerAI (github.com/kkahadze/JokerAI; no licence file in the repository, so NOT vendored) scores a
hand in `src/player.py`, `Player.update_score(dealt)`. This script reads that file from a
local git mirror (`git show <rev>:src/player.py`; nothing is copied into this repository),
loads it as a throwaway module, and compares it with `croupier.joker.core.scoring.hand_score`
(default options: khishti −200, took-all 100 × n) on every (bid, took, n) triple with
n = 1..9 and on a sample of random triples.

Usage: .venv/bin/python scripts/joker_vs_jokerai.py [MIRROR] [--rev HEAD] [--samples 5000]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import types

from croupier.joker.core.scoring import HandOutcome, hand_score

DEFAULT_MIRROR = "/work/.mirror/kkahadze+JokerAI/repo"


def load_player(mirror: str, rev: str) -> type:
    source = subprocess.run(
        ["git", "-C", mirror, "show", f"{rev}:src/player.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    module = types.ModuleType("jokerai_player")
    exec(compile(source, "jokerai/src/player.py", "exec"), module.__dict__)
    player: type = module.Player
    return player


def theirs(player_class: type, bid: int, took: int, n: int) -> int:
    player = player_class(0)
    player.set_desired(bid)
    player.set_taken(took)
    player.update_score(n)
    score: int = player.score
    return score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mirror", nargs="?", default=DEFAULT_MIRROR)
    parser.add_argument("--rev", default="HEAD")
    parser.add_argument("--samples", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    player_class = load_player(args.mirror, args.rev)
    rng = random.Random(args.seed)
    every = [(b, t, n) for n in range(1, 10) for b in range(n + 1) for t in range(n + 1)]
    sample = []
    for _ in range(args.samples):
        n = rng.randint(1, 9)
        sample.append((rng.randint(0, n), rng.randint(0, n), n))
    for label, triples in (("exhaustive", every), ("random", sample)):
        differ = [
            (b, t, n, ours, other)
            for b, t, n in triples
            if (ours := hand_score(HandOutcome(bid=b, took=t, cards=n)))
            != (other := theirs(player_class, b, t, n))
        ]
        print(f"{label}: {len(triples)} (bid, took, n) triples, {len(differ)} differ")
        for row in differ[:10]:
            b, t, n, ours, other = row
            print(f"  bid={b} took={t} n={n} ours={ours} jokerai={other}")
        if differ:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
