"""The chips and points arithmetic of one rummy round (docs/rules/rummy-tournaments.md, §10).

Integers only, no state. One copy for its two users: the tournament director's state
machine (`croupier.tournament.core.standings.apply`) and a rummy table's round settlement
(`croupier.rummy.core.settlement.settle`).

- rule 20 / OQ 8: each player pays the round entry fee into the pot, or every chip he
  holds when he holds less, and still plays;
- rule 22 / OQ 9 / OQ 15: each loser pays negative points × chip ratio, limited to the
  chips he has left after the fee and, with the winner-risk flag, to the chips the winner
  has left after the fee; each loser is limited on his own, from the counts right after
  the fees (so the order of the losers never matters);
- rules 21, 23: the winner takes the whole pot once, plus every payment;
- rule 33 / OQ 16: tournament points 3 to the winner, 1 to the loser(s) with the most
  negative points (every loser at a two-player table), 2 to every other loser;
- rule 34: 2 points to each player still in when a new level takes effect.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = [
    "LAST_POINTS",
    "LEVEL_BONUS",
    "LOSER_POINTS",
    "WINNER_POINTS",
    "entry_fees",
    "payments",
    "round_points",
]

# Rule 33 / OQ 16.
WINNER_POINTS = 3
LOSER_POINTS = 2
LAST_POINTS = 1
# Rule 34.
LEVEL_BONUS = 2


def entry_fees(stacks: Sequence[int], round_fee: int) -> tuple[int, ...]:
    """What each stack pays into the pot: the fee, or all of it when shorter (rule 20, OQ 8)."""
    return tuple(min(round_fee, stack) for stack in stacks)


def payments(
    negative_points: Sequence[tuple[str, int]],
    chip_ratio: int,
    at_risk: Mapping[str, int],
    winner_at_risk: int | None,
) -> tuple[tuple[str, int], ...]:
    """Each loser's payment to the winner (rule 22, OQ 9, OQ 15).

    `at_risk` is each loser's chips left after the fee; `winner_at_risk` is the winner's,
    or None when the tournament's winner-risk flag is off.

    >>> payments([("p2", 32)], 3, {"p2": 70}, None)  # vector 9: owes 96, has 70
    (('p2', 70),)
    >>> payments([("p2", 32)], 3, {"p2": 170}, 10)  # vector 10: the winner risks 10
    (('p2', 10),)
    """
    paid = []
    for loser, points in negative_points:
        limit = at_risk[loser] if winner_at_risk is None else min(at_risk[loser], winner_at_risk)
        paid.append((loser, min(points * chip_ratio, limit)))
    return tuple(paid)


def round_points(
    winner: str, negative_points: Sequence[tuple[str, int]]
) -> tuple[tuple[str, int], ...]:
    """Tournament points of a round, the winner first, then the losers as given (rule 33).

    >>> round_points("a", [("b", 10), ("c", 25), ("d", 60)])  # vector 17
    (('a', 3), ('b', 2), ('c', 2), ('d', 1))
    """
    worst = max((points for _, points in negative_points), default=0)
    losers = tuple(
        (loser, LAST_POINTS if points == worst else LOSER_POINTS)
        for loser, points in negative_points
    )
    return ((winner, WINNER_POINTS), *losers)
