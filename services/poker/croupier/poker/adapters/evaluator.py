"""Hand values for Hold'em (best 5 of 5-7 cards) and Omaha (exactly 2 hole + 3 board).

Backed by the `phevaluator` C extension (PokerHandEvaluator, Apache-2.0), called directly on
its native functions so a 7-card evaluation is one C call. Cards are this package's integers
(`croupier.poker.core.cards`), which are phevaluator's card ids. The rules receive the
showdown's functions as `RANKS` (`croupier.poker.core.state.HandRanks`): the pure core
imports no C extension.

A *value* is an int in 1..7462, higher is stronger; equal values are equal hands rank for
rank (suits never break ties, rule 62). The ordering was checked against `eval7` on 1,000,000
random hands (scripts/poker_evaluator_check.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations, starmap

from phevaluator import _pheval

from croupier.poker.core.state import HandRanks

_E5 = _pheval.evaluate_5cards
_E6 = _pheval.evaluate_6cards
_E7 = _pheval.evaluate_7cards
_OMAHA = _pheval.evaluate_omaha_cards

WORST = 7462  # phevaluator's rank of the weakest hand (7-5-4-3-2 offsuit); 1 is a royal flush

# Rule 60: categories from highest to lowest, with phevaluator's rank bounds (inclusive upper).
ROYAL_FLUSH = "royal_flush"
STRAIGHT_FLUSH = "straight_flush"
FOUR_OF_A_KIND = "four_of_a_kind"
FULL_HOUSE = "full_house"
FLUSH = "flush"
STRAIGHT = "straight"
THREE_OF_A_KIND = "three_of_a_kind"
TWO_PAIR = "two_pair"
ONE_PAIR = "one_pair"
HIGH_CARD = "high_card"

CATEGORIES: tuple[str, ...] = (
    HIGH_CARD,
    ONE_PAIR,
    TWO_PAIR,
    THREE_OF_A_KIND,
    STRAIGHT,
    FLUSH,
    FULL_HOUSE,
    FOUR_OF_A_KIND,
    STRAIGHT_FLUSH,
    ROYAL_FLUSH,
)
_BOUNDS: tuple[tuple[int, str], ...] = (
    (1, ROYAL_FLUSH),
    (10, STRAIGHT_FLUSH),
    (166, FOUR_OF_A_KIND),
    (322, FULL_HOUSE),
    (1599, FLUSH),
    (1609, STRAIGHT),
    (2467, THREE_OF_A_KIND),
    (3325, TWO_PAIR),
    (6185, ONE_PAIR),
    (7462, HIGH_CARD),
)


# The fastest single call: phevaluator's C function itself. It returns a *rank*: 1 (royal
# flush) .. 7462 (7-5-4-3-2), lower is stronger; value = WORST + 1 - rank.
rank7 = _E7
rank_omaha = _OMAHA  # (b1, b2, b3, b4, b5, h1, h2, h3, h4) -> rank


def ranks7(hands: Iterable[Sequence[int]]) -> list[int]:
    """Batch: the rank of each 7-card hand, the C function driven by `itertools.starmap`
    (no Python frame per hand)."""
    return list(starmap(_E7, hands))


def ranks_omaha(hands: Iterable[Sequence[int]]) -> list[int]:
    """Batch: the Omaha rank of each (board 5 + hole 4) 9-card tuple, board first."""
    return list(starmap(_OMAHA, hands))


def value5(cards: Sequence[int]) -> int:
    """The value of exactly five cards."""
    a, b, c, d, e = cards
    return WORST + 1 - int(_E5(a, b, c, d, e))


def holdem_value(hole: Sequence[int], board: Sequence[int]) -> int:
    """Best five of hole + board, using 0, 1 or 2 hole cards (rule 2); 5 to 7 cards in all."""
    cards = (*hole, *board)
    n = len(cards)
    if n == 7:
        return WORST + 1 - int(_E7(*cards))
    if n == 6:
        return WORST + 1 - int(_E6(*cards))
    if n == 5:
        return WORST + 1 - int(_E5(*cards))
    raise ValueError(f"a Hold'em hand has 5 to 7 cards, got {n}")


def seven(a: int, b: int, c: int, d: int, e: int, f: int, g: int) -> int:
    """Fast path: the value of 7 cards (one C call)."""
    return WORST + 1 - int(_E7(a, b, c, d, e, f, g))


def omaha_value(hole: Sequence[int], board: Sequence[int]) -> int:
    """Best hand of exactly 2 of the 4 hole cards and exactly 3 board cards (rule 3)."""
    if len(hole) == 4 and len(board) == 5:
        return WORST + 1 - int(_OMAHA(*board, *hole))
    if len(hole) < 2 or len(board) < 3:
        raise ValueError("an Omaha hand needs at least 2 hole cards and 3 board cards")
    best = WORST
    for h1, h2 in combinations(hole, 2):
        for b1, b2, b3 in combinations(board, 3):
            r = int(_E5(h1, h2, b1, b2, b3))
            if r < best:
                best = r
    return WORST + 1 - best


def hand_value(hole: Sequence[int], board: Sequence[int], omaha: bool) -> int:
    return omaha_value(hole, board) if omaha else holdem_value(hole, board)


def category(value: int) -> str:
    """Rule 60: the category name of a value."""
    rank = WORST + 1 - value
    for bound, name in _BOUNDS:
        if rank <= bound:
            return name
    raise ValueError(f"not a hand value: {value}")


def best_five(hole: Sequence[int], board: Sequence[int], omaha: bool) -> tuple[int, ...]:
    """The five cards that make the best hand (display and hand histories; not the fast path)."""
    if omaha:
        candidates = [(*h, *b) for h in combinations(hole, 2) for b in combinations(board, 3)]
    else:
        candidates = list(combinations((*hole, *board), 5))
    return max(candidates, key=value5)


RANKS = HandRanks(rank7=rank7, omaha_value=omaha_value)
