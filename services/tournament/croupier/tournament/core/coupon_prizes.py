"""Coupons as prizes (seed 000 rule 48, OQ 29): besides the money of the payout table, a
place may win a coupon, a ticket to enter a later tournament of the same game. OQ 29: a
coupon prize is a non-cash award, recorded apart from the money prizes: the wallet issues
it as a coupon (an asset, not money), and it takes nothing from the prize pool.

Ties: the players of a shared place (rule 40, OQ 18) hold the places it spans, as for the
money; the coupons of those places go to them one each, in the group's order (registration
order, as `ranking.split_prizes` gives the remainder), since a coupon cannot be split.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from croupier.game.limits import MAX_AMOUNT, OutOfBounds, check_int
from croupier.tournament.core.ranking import Place

__all__ = [
    "MAX_VALID_DAYS",
    "CouponPrize",
    "check_coupon_prizes",
    "coupon_winners",
]

MAX_VALID_DAYS = 3_650
"""Ten years: the longest a prize coupon stays usable."""


@dataclass(frozen=True)
class CouponPrize:
    """The coupon a place wins: worth `value` (an entry price, minor units, in the
    tournament's currency and game), usable for `valid_days` after the end."""

    place: int
    value: int
    valid_days: int


def check_coupon_prizes(prizes: Sequence[CouponPrize], max_players: int) -> None:
    """Places within the field, each at most once; values and validity in bounds
    (`OutOfBounds` naming the first wrong one)."""
    seen: set[int] = set()
    for prize in prizes:
        check_int(prize.place, "a coupon prize's place", 1, max_players)
        check_int(prize.value, "a coupon prize's value", 1, MAX_AMOUNT)
        check_int(prize.valid_days, "a coupon prize's valid_days", 1, MAX_VALID_DAYS)
        if prize.place in seen:
            raise OutOfBounds(f"place {prize.place} has two coupon prizes: give it one")
        seen.add(prize.place)


def coupon_winners(
    places: Sequence[Place], prizes: Sequence[CouponPrize]
) -> list[tuple[str, CouponPrize]]:
    """Who wins each coupon prize of the final `places` (ties: module docstring), in
    place order; a place nobody reached (fewer entrants) wins nobody anything.

    >>> prize = {p: CouponPrize(p, 500, 30) for p in (1, 2, 3)}
    >>> won = coupon_winners([Place(1, ("a",)), Place(2, ("b", "c"))], list(prize.values()))
    >>> [(player, p.place) for player, p in won]
    [('a', 1), ('b', 2), ('c', 3)]
    """
    by_place = {prize.place: prize for prize in prizes}
    won: list[tuple[str, CouponPrize]] = []
    for entry in places:
        for offset, player in enumerate(entry.players):
            prize = by_place.get(entry.place + offset)
            if prize is not None:
                won.append((player, prize))
    return won
