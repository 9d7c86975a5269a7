"""Seed 001 money rules: the single-game payout, commission and settlement, in integer cents.

- Payout (rule 5): the loser pays min(stake x cube x multiplier, maximum); no maximum = no cap
  (OQ 16). A refused double pays stake x the cube before the offer (rule 16), also capped
  (OQ 13).
- Commission (rules 39-45): charged only to the winner, on the amount that actually passes,
  for both players. Per player: a flat 3 cents when the amount passing is below $0.50, else
  6.5 % of it rounded UP to the cent (OQ 1, OQ 2); the total is twice that, and never more
  than the amount passing (OQ 3). Tournament games: none (rule 45).
- Settlement (rule 43): the loser is debited the amount passing; the winner is credited it
  minus the total commission.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from croupier.game.commission import backgammon_amount_passing, backgammon_commission
from croupier.game.money import CURRENCIES

__all__ = [
    "EquitySettlement",
    "Settlement",
    "abandoned_game_settlement",
    "commission_per_player",
    "settle",
    "single_game_payout",
]

MAX_CUBE = 64


def single_game_payout(stake: int, cube: int, multiplier: int, max_win: int | None) -> int:
    """What the loser of a single (money) game pays, in cents (rule 5, OQ 16)."""
    if stake < 0 or cube < 1 or multiplier not in (1, 2, 3):
        raise ValueError("stake >= 0, cube >= 1 and multiplier 1..3 are required")
    if stake == 0:
        return 0  # a free game
    return backgammon_amount_passing(stake=stake, cube=cube, multiplier=multiplier, maximum=max_win)


def commission_per_player(amount: int, tournament: bool = False) -> int:
    """The per-player commission on `amount` cents passing (rules 41, 42, 45).

    The arithmetic is `croupier.game.commission`'s (the one home of money math); tables
    here are priced in cents of a real-money currency.
    """
    if amount < 0:
        raise ValueError("the amount passing cannot be negative")
    if amount == 0:
        return 0
    return backgammon_commission(amount, CURRENCIES["USD"], tournament=tournament).per_player


@dataclass(frozen=True)
class Settlement:
    """The money moves of one settled game or series, in cents."""

    amount: int  # what passes from the loser to the winner (before commission)
    commission_per_player: int
    commission_total: int
    loser_delta: int  # -amount
    winner_delta: int  # amount - commission_total


def settle(amount: int, tournament: bool = False) -> Settlement:
    """Settlement of `amount` cents passing from the loser to the winner (rules 39-45)."""
    per_player = commission_per_player(amount, tournament)
    total = min(2 * per_player, amount)
    return Settlement(
        amount=amount,
        commission_per_player=per_player,
        commission_total=total,
        loser_delta=-amount,
        winner_delta=amount - total,
    )


@dataclass(frozen=True)
class EquitySettlement:
    """An abandoned game settled from an equity (OQ 7): who pays whom, and how much."""

    payer: int | None  # 0 or 1 (the side the equity goes against), None when nothing passes
    payee: int | None
    settlement: Settlement


def abandoned_game_settlement(
    equity: Decimal | Fraction | float | str,
    stake: int,
    cube: int,
    max_win: int | None,
    tournament: bool = False,
) -> EquitySettlement:
    """Settle an abandoned single game from player 0's cubeful money equity E (OQ 7, OQ 13).

    E is in units of the current cube x stake (-3 <= E <= 3). The amount |E| x stake x cube
    is rounded to the nearest cent (halves up), capped at the maximum, and passes from
    player 1 to player 0 when E > 0, from player 0 to player 1 when E < 0; commission
    applies to it as to any game.
    """
    e = Decimal(str(equity)) if isinstance(equity, float | str) else equity
    if isinstance(e, Fraction):
        e = Decimal(e.numerator) / Decimal(e.denominator)
    if not Decimal(-3) <= e <= Decimal(3):
        raise ValueError(f"a money equity lies in [-3, 3], got {equity!r}")
    raw = (abs(e) * stake * cube).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    amount = int(raw)
    if max_win is not None:
        amount = min(amount, max_win)
    if amount == 0 or e == 0:
        return EquitySettlement(None, None, settle(0, tournament))
    payee, payer = (0, 1) if e > 0 else (1, 0)
    return EquitySettlement(payer, payee, settle(amount, tournament))
