"""The score of one hand (base game item 9) and how the score sheet writes points.

With n cards per player, bid b and tricks taken t:

- b = t = 0, a fulfilled pass: 50 (seed §2.1 confirms the 50);
- b = t with 1 ≤ b < n: 50 × b + 50 (1 → 100, 2 → 150, … 8 → 450);
- b = t = n, "took all": 100 × n by default (option `took_all`, OQ 11);
- b ≠ t with t ≥ 1, a failed hand (a failed pass included): 10 per trick taken;
- b ≥ 1 and t = 0, a khishti: the table's penalty (default −200; OQ 10).

A khishti is a failed hand but never an "ordinary score": it is never a best hand for the
premia or the moshla (rule 8). Points are integers; the sheet shows them divided by 100 in
the shortest exact form (rule 16, OQ 3).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from croupier.joker.core.options import Khishti, TookAll

__all__ = ["HandOutcome", "format_adjustment", "format_points", "hand_score", "shared_outcome"]


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """One player's bid and tricks in one hand of `cards` cards each."""

    bid: int
    took: int
    cards: int

    @property
    def fulfilled(self) -> bool:
        """Tricks taken = bid (rule 4); a fulfilled pass counts too (rule 6)."""
        return self.bid == self.took

    @property
    def khishti(self) -> bool:
        """Bid at least one trick and took none (BG 9)."""
        return self.bid >= 1 and self.took == 0

    def __reduce__(self) -> tuple[Callable[[int, int, int], HandOutcome], tuple[int, int, int]]:
        # Unpickled as a shared value (`shared_outcome`): a snapshot late in a game holds a
        # few dozen outcomes, and building each one again was a third of decoding it.
        return shared_outcome, (self.bid, self.took, self.cards)


@functools.lru_cache(maxsize=1024)  # bids, tricks and hand sizes of 0-9: 1,000 at most
def shared_outcome(bid: int, took: int, cards: int) -> HandOutcome:
    """The outcome of these numbers, one object for all who ask (outcomes are values)."""
    return HandOutcome(bid, took, cards)


def hand_score(
    outcome: HandOutcome,
    khishti: Khishti | None = None,
    took_all: TookAll = TookAll.HUNDRED_PER_CARD,
) -> int:
    """Points for one hand (BG 9).

    >>> hand_score(HandOutcome(bid=4, took=4, cards=9))
    250
    >>> hand_score(HandOutcome(bid=9, took=9, cards=9))
    900
    >>> hand_score(HandOutcome(bid=3, took=2, cards=9))
    20
    >>> hand_score(HandOutcome(bid=2, took=0, cards=5))
    -200
    """
    bid, took, n = outcome.bid, outcome.took, outcome.cards
    if bid == took:
        if bid == 0:
            return 50
        if bid == n and took_all is TookAll.HUNDRED_PER_CARD:
            return 100 * n
        return 50 * bid + 50
    if took == 0:
        return (khishti or Khishti()).penalty(n)
    return 10 * took


def format_points(points: int) -> str:
    """Points as the sheet shows them: ÷100, shortest exact form, ASCII minus.

    >>> [format_points(p) for p in (950, 170, 1000, -650, 0, -40, 1205)]
    ['9.5', '1.7', '10', '-6.5', '0', '-0.4', '12.05']
    """
    sign = "-" if points < 0 else ""
    whole, cents = divmod(abs(points), 100)
    if cents == 0:
        return f"{sign}{whole}"
    if cents % 10 == 0:
        return f"{sign}{whole}.{cents // 10}"
    return f"{sign}{whole}.{cents:02d}"


def format_adjustment(points: int) -> str:
    """A premia or moshla beside the Σ line: "+2.5", "-3" (rule 19)."""
    text = format_points(points)
    return text if points < 0 else "+" + text
