"""Seed 001 commission and settlement (rules 5, 39-45; vectors 1-8), integer cents."""

from __future__ import annotations

from decimal import Decimal

import pytest

from croupier.backgammon.core.commission import (
    abandoned_game_settlement,
    commission_per_player,
    settle,
    single_game_payout,
)
from croupier.game.commission import backgammon_commission
from croupier.game.money import CURRENCIES


@pytest.mark.parametrize(
    ("vector", "stake", "cube", "multiplier", "max_win", "passing", "total", "winner"),
    [
        (1, 1000, 1, 1, None, 1000, 130, 870),
        (2, 25, 1, 1, None, 25, 6, 19),
        (3, 10, 1, 1, None, 10, 6, 4),
        (4, 50, 1, 1, None, 50, 8, 42),
        (5, 100, 1, 1, None, 100, 14, 86),
        (6, 100, 2, 2, 5000, 400, 52, 348),
        (7, 1000, 8, 3, 10000, 10000, 1300, 8700),
        (8, 25, 1, 2, None, 50, 8, 42),
    ],
)
def test_vectors_1_to_8_settlement(
    vector: int,
    stake: int,
    cube: int,
    multiplier: int,
    max_win: int | None,
    passing: int,
    total: int,
    winner: int,
) -> None:
    """Vectors 1-8: amount passing, total commission, winner credit, loser debit."""
    amount = single_game_payout(stake, cube, multiplier, max_win)
    assert amount == passing
    s = settle(amount)
    assert s.commission_total == total
    assert s.winner_delta == winner
    assert s.loser_delta == -passing
    assert s.winner_delta + s.loser_delta == -s.commission_total


def test_rule_41_flat_three_cents_below_fifty() -> None:
    assert [commission_per_player(a) for a in (10, 25, 49)] == [3, 3, 3]


def test_rule_42_six_and_a_half_percent_rounded_up() -> None:
    assert commission_per_player(50) == 4  # 3.25 -> 4 (OQ 2: per player, then doubled)
    assert commission_per_player(1000) == 65
    assert commission_per_player(200) == 13
    assert commission_per_player(201) == 14  # 13.065 -> 14


def test_rule_45_tournament_games_pay_no_commission() -> None:
    s = settle(1000, tournament=True)
    assert (s.commission_total, s.winner_delta, s.loser_delta) == (0, 1000, -1000)


def test_oq3_commission_never_exceeds_the_amount_passing() -> None:
    assert settle(4).commission_total == 4
    assert settle(0).commission_total == 0


def test_same_commission_as_the_wallet_for_every_amount() -> None:
    """The engine's pure function and the wallet's calculator agree (USD, 1c..$200)."""
    usd = CURRENCIES["USD"]
    for amount in range(1, 20001):
        assert settle(amount).commission_total == backgammon_commission(amount, usd).total


def test_rule_5_cap_and_oq16_no_cap() -> None:
    assert single_game_payout(1000, 64, 3, 100000) == 100000
    assert single_game_payout(1000, 64, 3, None) == 192000


def test_oq7_abandoned_game_settlement_from_equity() -> None:
    """OQ 7: |E| x stake x cube to the cent, capped, to the side E favours, commission on it."""
    res = abandoned_game_settlement(Decimal("0.4567"), stake=1000, cube=2, max_win=None)
    assert (res.payee, res.payer) == (0, 1)
    assert res.settlement.amount == 913  # 913.4 -> 913
    assert res.settlement.commission_total == 2 * 60  # 59.345 -> 60 per player
    res = abandoned_game_settlement(-1.25, stake=1000, cube=4, max_win=3000)
    assert (res.payee, res.payer, res.settlement.amount) == (1, 0, 3000)
    res = abandoned_game_settlement("0", stake=1000, cube=1, max_win=None)
    assert res.payer is None and res.settlement.amount == 0
    with pytest.raises(ValueError):
        abandoned_game_settlement(3.5, stake=1, cube=1, max_win=None)
