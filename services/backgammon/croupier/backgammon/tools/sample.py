"""Random reachable positions for cross-checks and benchmarks.

The randomness is the caller's `random.Random` (seeded by the test or benchmark), so this
module stays deterministic; the engine itself never uses it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from croupier.backgammon.core.board import BAR, STARTING_BOARD, Board, swap
from croupier.backgammon.core.moves import count_legal_positions, legal_positions

__all__ = ["Sample", "describe", "random_positions"]


@dataclass(frozen=True)
class Sample:
    board: Board  # mover = board[1]
    d1: int
    d2: int


def random_positions(rng: random.Random, count: int) -> list[Sample]:
    """`count` (position, dice) pairs from random self-play games (uniform random plays).

    Every position of every game is taken, with a fresh roll, until `count` are collected.
    """
    samples: list[Sample] = []
    while len(samples) < count:
        board = STARTING_BOARD
        while len(samples) < count:
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            samples.append(Sample(board, d1, d2))
            e1, e2 = rng.randint(1, 6), rng.randint(1, 6)
            options = legal_positions(board, e1, e2)
            board = rng.choice(options)
            if sum(board[1]) == 0:
                break
            board = swap(board)
    return samples


def describe(samples: list[Sample]) -> dict[str, int]:
    """How many samples have the mover on the bar, bearing off, no legal move, doubles."""
    on_bar = sum(1 for s in samples if s.board[1][BAR])
    bearing_off = sum(1 for s in samples if not s.board[1][BAR] and sum(s.board[1][6:]) == 0)
    no_move = 0
    for s in samples:
        if count_legal_positions(s.board, s.d1, s.d2) == 1 and legal_positions(
            s.board, s.d1, s.d2
        ) == [s.board]:
            no_move += 1
    doubles = sum(1 for s in samples if s.d1 == s.d2)
    return {
        "samples": len(samples),
        "mover_on_bar": on_bar,
        "bearing_off": bearing_off,
        "no_legal_move": no_move,
        "doubles": doubles,
    }
