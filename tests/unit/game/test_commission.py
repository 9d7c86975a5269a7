"""Commission calculators (pure): seed 001 backgammon vectors 1–8, rake, tournament fees."""

from __future__ import annotations

import pytest

from croupier.game import Malformed
from croupier.game.commission import (
    FlatRake,
    PercentRake,
    backgammon_amount_passing,
    backgammon_commission,
    split_entry_price,
)
from croupier.game.money import CURRENCIES

USD = CURRENCIES["USD"]

# (vector, stake ¢, cube, multiplier, maximum ¢, passing ¢, per-player ¢, total ¢, winner +¢)
SEED_001_VECTORS = [
    (1, 1000, 1, 1, None, 1000, 65, 130, 870),
    (2, 25, 1, 1, None, 25, 3, 6, 19),
    (3, 10, 1, 1, None, 10, 3, 6, 4),
    (4, 50, 1, 1, None, 50, 4, 8, 42),
    (5, 100, 1, 1, None, 100, 7, 14, 86),
    (6, 100, 2, 2, 5000, 400, 26, 52, 348),
    (7, 1000, 8, 3, 10000, 10000, 650, 1300, 8700),
    (8, 25, 1, 2, None, 50, 4, 8, 42),
]


@pytest.mark.parametrize(
    ("vector", "stake", "cube", "multiplier", "maximum", "passing", "per_player", "total", "won"),
    SEED_001_VECTORS,
)
def test_seed_001_vectors_1_to_8_rules_39_to_43_commission(
    vector: int,
    stake: int,
    cube: int,
    multiplier: int,
    maximum: int | None,
    passing: int,
    per_player: int,
    total: int,
    won: int,
) -> None:
    amount = backgammon_amount_passing(
        stake=stake, cube=cube, multiplier=multiplier, maximum=maximum
    )
    assert amount == passing, f"vector {vector}: rule 5 amount passing"
    commission = backgammon_commission(amount, USD)
    assert (commission.per_player, commission.total) == (per_player, total), f"vector {vector}"
    assert commission.winner_receives == won, f"vector {vector}: rule 43 winner credited"


def test_rule_42_round_up_per_player_then_double() -> None:
    # 6.5% of 50¢ = 3.25¢ → 4¢ per player → 8¢ (not ceil(6.5¢) = 7¢).
    assert backgammon_commission(50, USD).total == 8


def test_oq_3_commission_never_exceeds_amount_passing() -> None:
    tiny = backgammon_commission(5, USD)
    assert tiny.total == 5 and tiny.winner_receives == 0


def test_rule_45_play_money_chips_and_tournaments_carry_no_commission() -> None:
    assert backgammon_commission(1000, CURRENCIES["PLAY"]).total == 0
    assert backgammon_commission(1000, CURRENCIES["CHIP"]).total == 0
    assert backgammon_commission(1000, USD, tournament=True).total == 0


def test_commission_for_zero_exponent_currency_rounds_up_to_one_unit() -> None:
    jpy = CURRENCIES["JPY"]
    assert backgammon_commission(1, jpy).per_player == 1  # 3% of ¥1 → ¥1, capped at ¥1
    assert backgammon_commission(1000, jpy).per_player == 65


def test_rule_5_cap_and_bad_inputs() -> None:
    assert backgammon_amount_passing(stake=500, cube=64, multiplier=3, maximum=None) == 96000
    with pytest.raises(Malformed):
        backgammon_amount_passing(stake=0, cube=1, multiplier=1, maximum=None)
    with pytest.raises(Malformed):
        backgammon_amount_passing(stake=10, cube=1, multiplier=4, maximum=None)
    with pytest.raises(Malformed):
        backgammon_commission(0, USD)


def test_percent_rake_with_cap_and_flat_rake() -> None:
    rake = PercentRake(basis_points=500, cap=300)
    assert rake.rake(1999, USD) == 99  # rounded down in the player's favour
    assert rake.rake(100_000, USD) == 300
    assert rake.rake(100_000, CURRENCIES["PLAY"]) == 0
    assert FlatRake(amount=50).rake(30, USD) == 30
    assert FlatRake(amount=50).rake(1000, CURRENCIES["CHIP"]) == 0
    with pytest.raises(Malformed):
        PercentRake(basis_points=10_001)


def test_seed_001_para_24_tournament_fee_is_part_of_the_entry_price() -> None:
    split = split_entry_price(buy_in=1000, fee=100, currency=USD)
    assert (split.prize_pool, split.fee) == (1000, 100)
    play = split_entry_price(buy_in=1000, fee=100, currency=CURRENCIES["PLAY"])
    assert play.fee == 0
