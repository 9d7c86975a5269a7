"""The payout table keyed by the number of entrants (rule 47, OQ 27).

A bracket covers a range of entrant counts and gives each place a share of the prize pool
in basis points (1/10,000), 1st place first, the shares adding up to 10,000. Each place's
prize is its share of the pool rounded down to the minor unit; what rounding leaves (fewer
units than there are places) goes to 1st place, so the prizes always add up to the pool.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from croupier.game.limits import MAX_AMOUNT, OutOfBounds, check_int
from croupier.tournament.core.errors import InvalidInput

__all__ = ["WHOLE", "PayoutBracket", "check_covers", "check_payouts", "prizes_for"]

WHOLE = 10_000
"""Basis points in the whole pool."""


@dataclass(frozen=True)
class PayoutBracket:
    """Places' shares (basis points, 1st first) for `min_entrants..max_entrants` entrants."""

    min_entrants: int
    max_entrants: int
    shares_bp: tuple[int, ...]


def check_payouts(brackets: Sequence[PayoutBracket]) -> None:
    """Refuse an empty table, a bad bracket, or two brackets covering one entrant count."""
    try:
        if not brackets:
            raise OutOfBounds("the payout table needs at least one bracket")
        covered: list[tuple[int, int]] = []
        for number, bracket in enumerate(brackets, start=1):
            low = check_int(bracket.min_entrants, f"bracket {number} min_entrants", 1, MAX_AMOUNT)
            check_int(bracket.max_entrants, f"bracket {number} max_entrants", low, MAX_AMOUNT)
            if not bracket.shares_bp or len(bracket.shares_bp) > bracket.min_entrants:
                raise OutOfBounds(
                    f"bracket {number} must pay 1 to {bracket.min_entrants} places (its "
                    f"min_entrants), got {len(bracket.shares_bp)}"
                )
            for place, share in enumerate(bracket.shares_bp, start=1):
                check_int(share, f"bracket {number} share of place {place}", 0, WHOLE)
            if sum(bracket.shares_bp) != WHOLE:
                raise OutOfBounds(
                    f"bracket {number}'s shares must add up to {WHOLE} basis points, "
                    f"got {sum(bracket.shares_bp)}"
                )
            covered.append((bracket.min_entrants, bracket.max_entrants))
        covered.sort()
        for (_, high), (low, _) in pairwise(covered):
            if low <= high:
                raise OutOfBounds("two payout brackets cover the same number of entrants")
    except OutOfBounds as exc:
        raise InvalidInput("invalid_payouts", exc.message) from None


def check_covers(brackets: Sequence[PayoutBracket], fewest: int, most: int) -> None:
    """Refuse a table (already checked) that leaves an entrant count in `fewest..most`
    without a bracket: a tournament ending with that many entrants could pay nothing."""
    wanted = fewest
    for bracket in sorted(brackets, key=lambda b: b.min_entrants):
        if bracket.max_entrants < wanted:
            continue
        if bracket.min_entrants > wanted:
            break
        wanted = bracket.max_entrants + 1
        if wanted > most:
            return
    gap_end = min([b.min_entrants - 1 for b in brackets if b.min_entrants > wanted] + [most])
    missing = f"{wanted}" if gap_end == wanted else f"{wanted} to {gap_end}"
    raise InvalidInput(
        "invalid_payouts",
        f"the payout table has no bracket for {missing} entrants: every count from "
        f"min_players ({fewest}) to max_players ({most}) needs one",
    )


def prizes_for(brackets: Sequence[PayoutBracket], entrants: int, pool: int) -> tuple[int, ...]:
    """Each place's prize, 1st first, for `entrants` sharing `pool` minor units; () when no
    bracket covers that many entrants."""
    bracket = next(
        (b for b in brackets if b.min_entrants <= entrants <= b.max_entrants),
        None,
    )
    if bracket is None:
        return ()
    prizes = [pool * share // WHOLE for share in bracket.shares_bp]
    prizes[0] += pool - sum(prizes)
    return tuple(prizes)
