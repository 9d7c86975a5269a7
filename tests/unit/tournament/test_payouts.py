"""Rule 47, OQ 27: the payout table keyed by the number of entrants, in basis points."""

from __future__ import annotations

import pytest

from croupier.tournament.core.errors import InvalidInput
from croupier.tournament.core.payouts import PayoutBracket, check_covers, check_payouts, prizes_for

TABLE = (PayoutBracket(2, 3, (10_000,)), PayoutBracket(4, 9, (5_000, 3_000, 2_000)))


def test_rule_47_the_bracket_of_the_entrant_count_splits_the_pool() -> None:
    assert prizes_for(TABLE, 3, 2_000) == (2_000,)
    assert prizes_for(TABLE, 4, 4_000) == (2_000, 1_200, 800)
    assert prizes_for(TABLE, 10, 4_000) == ()


def test_rounding_leaves_the_remainder_to_first_place_so_prizes_add_up_to_the_pool() -> None:
    prizes = prizes_for(TABLE, 5, 1_001)
    assert prizes == (501, 300, 200) and sum(prizes) == 1_001


@pytest.mark.parametrize(
    "table",
    [
        (),
        (PayoutBracket(2, 3, (9_999,)),),
        (PayoutBracket(3, 2, (10_000,)),),
        (PayoutBracket(2, 3, (5_000, 3_000, 2_000)),),  # 3 places for 2 entrants
        (PayoutBracket(2, 4, (10_000,)), PayoutBracket(4, 6, (10_000,))),
    ],
)
def test_a_bad_payout_table_is_refused(table: tuple[PayoutBracket, ...]) -> None:
    with pytest.raises(InvalidInput):
        check_payouts(table)


@pytest.mark.parametrize(
    ("table", "fewest", "most", "missing"),
    [
        (TABLE, 2, 10, "10 entrants"),
        (TABLE, 1, 9, "1 entrants"),
        ((PayoutBracket(2, 3, (10_000,)), PayoutBracket(6, 9, (10_000,))), 2, 9, "4 to 5 entrants"),
        ((PayoutBracket(5, 9, (10_000,)),), 2, 9, "2 to 4 entrants"),
    ],
)
def test_rule_47_a_payout_table_needs_a_bracket_for_every_entrant_count_it_may_see(
    table: tuple[PayoutBracket, ...], fewest: int, most: int, missing: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_covers(table, fewest, most)
    assert refused.value.reason == "invalid_payouts"
    assert f"no bracket for {missing}" in refused.value.message


def test_a_table_covering_every_count_from_min_to_max_players_is_accepted() -> None:
    check_covers(TABLE, 2, 9)
    check_covers(TABLE, 4, 4)
