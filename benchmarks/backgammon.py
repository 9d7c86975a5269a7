"""Backgammon legal-play generation speed: this engine vs GNU Backgammon's C generator.

    .venv/bin/python -m benchmarks.backgammon [--samples 10000] [--seed 2026] [--repeat 3]

The same random reachable positions x dice (random self-play, `croupier.backgammon.tools.sample`)
go through:
- `legal_positions` (ours): the distinct resulting boards (gnubg's layout), what the engine
  and the conformance command use;
- ours, keys only (the raw generator's dedupe keys, no board tuples built);
- ours + Position IDs (every resulting board encoded as a 14-character ID);
- `gnubg_nn.moves` (the peer: gnubg's GenerateMoves in C, returning position keys);
- a brute-force Python generator (every dice order, board copies, dedupe at the end), the
  baseline the engine replaced, on a 1,000-position subsample.
Best of `--repeat` runs, in CPU time of this process (`time.process_time`, steadier than
wall time on a shared machine); "positions/s" counts (position, dice) inputs per second.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

import gnubg_nn

from croupier.backgammon.core.board import Board, position_id
from croupier.backgammon.core.moves import legal_positions, raw_generate
from croupier.backgammon.tools.sample import Sample, random_positions


def brute_force(board: Board, d1: int, d2: int) -> set[Board]:
    """A straightforward generator: all orders, copy per move, keep the longest/largest."""
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    found: list[tuple[int, int, Board]] = []

    def legal(mover: list[int], opp: list[int], src: int, die: int) -> int | None:
        if mover[24] and src != 24:
            return None
        dst = 24 - die if src == 24 else src - die
        if dst >= 0:
            return None if opp[23 - dst] >= 2 else dst
        if any(mover[6:]):
            return None
        if dst == -1 or not any(mover[src + 1 : 6]):
            return -1
        return None

    def rec(mover: list[int], opp: list[int], dice: list[int], used: int, pips: int) -> None:
        moved = False
        if dice:
            for src in range(24, -1, -1):
                if not mover[src]:
                    continue
                dst = legal(mover, opp, src, dice[0])
                if dst is None:
                    continue
                m, o = list(mover), list(opp)
                m[src] -= 1
                if dst >= 0:
                    m[dst] += 1
                    if o[23 - dst] == 1:
                        o[23 - dst] = 0
                        o[24] += 1
                moved = True
                rec(m, o, dice[1:], used + 1, pips + dice[0])
        if not moved:
            found.append((used, pips, (tuple(opp), tuple(mover))))

    for order in orders:
        rec(list(board[1]), list(board[0]), order, 0, 0)
    most = max(u for u, _, _ in found)
    pips = max(p for u, p, _ in found if u == most)
    return {b for u, p, b in found if u == most and p == pips}


def timed(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def run(samples: list[Sample], repeat: int) -> list[tuple[str, int, float]]:
    gnubg_inputs = [([list(s.board[0]), list(s.board[1])], s.d1, s.d2) for s in samples]
    subsample = samples[:1000]

    def ours() -> None:
        for s in samples:
            legal_positions(s.board, s.d1, s.d2)

    def ours_keys() -> None:
        for s in samples:
            raw_generate(s.board, s.d1, s.d2, False)

    def ours_ids() -> None:
        for s in samples:
            [position_id(b) for b in legal_positions(s.board, s.d1, s.d2)]

    def peer() -> None:
        moves = gnubg_nn.moves
        for b, d1, d2 in gnubg_inputs:
            moves(b, d1, d2)

    def naive() -> None:
        for s in subsample:
            brute_force(s.board, s.d1, s.d2)

    return [
        ("gnubg_nn.moves (C, peer)", len(samples), timed(peer, repeat)),
        ("ours: legal_positions (boards)", len(samples), timed(ours, repeat)),
        ("ours: raw generator (no Board assembly)", len(samples), timed(ours_keys, repeat)),
        ("ours: boards + Position IDs", len(samples), timed(ours_ids, repeat)),
        ("brute force Python (baseline)", len(subsample), timed(naive, 1)),
    ]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="backgammon legal-play generation speed")
    parser.add_argument("--samples", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeat", type=int, default=3)
    args, _ = parser.parse_known_args(argv)  # `make bench` passes its arguments to all
    samples = random_positions(random.Random(args.seed), args.samples)
    # sanity: both sides agree on the number of resulting positions for every input
    for s in samples[:2000]:
        ref = len(gnubg_nn.moves([list(s.board[0]), list(s.board[1])], s.d1, s.d2)) or 1
        assert len(legal_positions(s.board, s.d1, s.d2)) == ref
    assert all(
        set(legal_positions(s.board, s.d1, s.d2)) == brute_force(s.board, s.d1, s.d2)
        for s in samples[:300]
    )
    rows = run(samples, args.repeat)
    peer_rate = rows[0][1] / rows[0][2]
    print(f"## Backgammon legal-play generation ({args.samples} random positions x dice)\n")
    print("| generator | inputs | seconds | positions/s | vs gnubg_nn |")
    print("|---|---:|---:|---:|---:|")
    for name, count, seconds in rows:
        rate = count / seconds
        print(f"| {name} | {count} | {seconds:.3f} | {rate:,.0f} | {rate / peer_rate:.3f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
