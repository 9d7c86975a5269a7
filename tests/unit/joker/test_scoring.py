"""Base game item 9 (hand score), the khishti options (OQ 10), "took all" (OQ 11), and the
sheet's ÷100 number format (rule 16, OQ 3)."""

from __future__ import annotations

import pytest

from croupier.joker.core.options import Khishti, TookAll
from croupier.joker.core.scoring import HandOutcome, format_adjustment, format_points, hand_score


def score(bid: int, took: int, n: int = 9, **kwargs: object) -> int:
    return hand_score(HandOutcome(bid=bid, took=took, cards=n), **kwargs)  # type: ignore[arg-type]


def test_bg9_fulfilled_pass_scores_50() -> None:
    assert score(0, 0) == 50
    assert score(0, 0, n=1) == 50


@pytest.mark.parametrize(
    ("bid", "points"), [(1, 100), (2, 150), (3, 200), (4, 250), (5, 300), (8, 450)]
)
def test_bg9_fulfilled_bid_scores_50b_plus_50(bid: int, points: int) -> None:
    assert score(bid, bid) == points


@pytest.mark.parametrize("n", range(1, 10))
def test_bg9_took_all_as_bid_scores_100n(n: int) -> None:
    assert score(n, n, n=n) == 100 * n


def test_oq11_took_all_option_as_bid_scores_like_any_bid() -> None:
    assert score(9, 9, took_all=TookAll.AS_BID) == 500
    assert score(1, 1, n=1, took_all=TookAll.AS_BID) == 100  # n = 1: the same either way


@pytest.mark.parametrize(
    ("bid", "took", "points"), [(3, 2, 20), (1, 3, 30), (5, 9, 90), (7, 8, 80)]
)
def test_bg9_failed_hand_scores_10_per_trick(bid: int, took: int, points: int) -> None:
    assert score(bid, took) == points


def test_bg9_failed_pass_scores_10_per_trick() -> None:
    assert score(0, 1) == 10
    assert score(0, 4) == 40


def test_bg9_khishti_default_minus_200() -> None:
    assert score(1, 0) == -200
    assert score(9, 0) == -200
    assert HandOutcome(bid=1, took=0, cards=3).khishti
    assert not HandOutcome(bid=0, took=0, cards=3).khishti


def test_oq10_khishti_option_minus_500() -> None:
    assert score(2, 0, khishti=Khishti.flat(-500)) == -500


def test_oq10_khishti_option_split_200_short_500_nine() -> None:
    split = Khishti.split(-200, -500)
    assert score(2, 0, n=8, khishti=split) == -200
    assert score(2, 0, n=1, khishti=split) == -200
    assert score(2, 0, n=9, khishti=split) == -500


@pytest.mark.parametrize(
    ("points", "text"),
    [
        (950, "9.5"),
        (170, "1.7"),
        (1000, "10"),
        (-650, "-6.5"),
        (0, "0"),
        (90, "0.9"),
        (-40, "-0.4"),
        (3000, "30"),
        (-2000, "-20"),
        (-1180, "-11.8"),
        (1205, "12.05"),
    ],
)
def test_rule_16_sheet_shows_points_divided_by_100(points: int, text: str) -> None:
    assert format_points(points) == text


def test_rule_19_adjustments_are_signed() -> None:
    assert format_adjustment(250) == "+2.5"
    assert format_adjustment(-300) == "-3"
