"""Rule 48, OQ 29: coupons won by final places, apart from the money (the pure core)."""

from __future__ import annotations

import pytest

from croupier.game.limits import OutOfBounds
from croupier.tournament.core.coupon_prizes import (
    CouponPrize,
    check_coupon_prizes,
    coupon_winners,
)
from croupier.tournament.core.ranking import Place

FIRST, SECOND, THIRD = (CouponPrize(place, 500 * place, 30) for place in (1, 2, 3))


def test_rule_48_each_place_with_a_coupon_prize_wins_it() -> None:
    places = [Place(1, ("a",)), Place(2, ("b",)), Place(3, ("c",)), Place(4, ("d",))]
    assert coupon_winners(places, [FIRST, THIRD]) == [("a", FIRST), ("c", THIRD)]


def test_rule_48_tied_players_take_the_coupons_of_the_places_they_span_in_order() -> None:
    places = [Place(1, ("a",)), Place(2, ("c", "b")), Place(4, ("d",))]
    assert coupon_winners(places, [SECOND, THIRD]) == [("c", SECOND), ("b", THIRD)]
    # Only the first of the spanned places has a coupon: one coupon, the group's first.
    assert coupon_winners(places, [SECOND]) == [("c", SECOND)]


def test_rule_48_a_place_nobody_reached_wins_nobody_a_coupon() -> None:
    assert coupon_winners([Place(1, ("a",)), Place(2, ("b",))], [THIRD]) == []


@pytest.mark.parametrize(
    ("prizes", "message"),
    [
        ((CouponPrize(0, 500, 30),), "place"),
        ((CouponPrize(7, 500, 30),), "place"),
        ((CouponPrize(1, 0, 30),), "value"),
        ((CouponPrize(1, 500, 0),), "valid_days"),
        ((FIRST, CouponPrize(1, 100, 10)), "two coupon prizes"),
    ],
)
def test_rule_48_coupon_prizes_out_of_bounds_are_refused(
    prizes: tuple[CouponPrize, ...], message: str
) -> None:
    with pytest.raises(OutOfBounds) as info:
        check_coupon_prizes(prizes, max_players=6)
    assert message in info.value.message
