"""Commission calculators: pure functions on integer minor units, the one home of money math.

- Backgammon (seed 001 ¶18–¶25, rules 39–45): the winner pays for both players, on the
  amount that actually passes; per player a flat 3¢ below $0.50, else 6.5% rounded up to
  the cent; the total never exceeds the amount passing (OQ 3); tournaments charge none.
- Tournament fee: part of the entry price (seed 001 ¶24), split off by `split_entry_price`.
- Configurable per-game rake: a percentage with a cap, or a flat amount.
- Play money and virtual chips never carry commission.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from croupier.game.errors import Malformed
from croupier.game.money import Currency

__all__ = [
    "BackgammonCommission",
    "EntrySplit",
    "FlatRake",
    "NoCommission",
    "PercentRake",
    "RakePolicy",
    "backgammon_amount_passing",
    "backgammon_commission",
    "split_entry_price",
]

_BACKGAMMON_FLAT_PER_PLAYER = Fraction(3, 100)  # 3¢ in major units (¶19–¶20)
_BACKGAMMON_TIER = Fraction(1, 2)  # $0.50 (¶20–¶21)
_BACKGAMMON_RATE = Fraction(65, 1000)  # 6.5% (¶21)


def _ceil(value: Fraction) -> int:
    return -((-value.numerator) // value.denominator)


@dataclass(frozen=True, slots=True, kw_only=True)
class BackgammonCommission:
    """The commission on one backgammon game, in minor units."""

    amount_passing: int
    per_player: int
    total: int

    @property
    def winner_receives(self) -> int:
        """What the winner's account gains: the amount passing minus the total commission."""
        return self.amount_passing - self.total


def backgammon_amount_passing(
    *, stake: int, cube: int, multiplier: int, maximum: int | None
) -> int:
    """Rule 5: min(initial stake × cube value × win multiplier, agreed maximum).

    >>> backgammon_amount_passing(stake=1000, cube=8, multiplier=3, maximum=10000)
    10000
    """
    if stake <= 0 or cube < 1 or multiplier not in (1, 2, 3):
        raise Malformed(
            "stake must be > 0, cube ≥ 1 and the multiplier 1, 2 or 3", "invalid_request"
        )
    amount = stake * cube * multiplier
    return amount if maximum is None else min(amount, maximum)


def backgammon_commission(
    amount_passing: int, currency: Currency, *, tournament: bool = False
) -> BackgammonCommission:
    """Rules 39–45: commission on the amount that passes from loser to winner.

    The tier is chosen by the amount passing (OQ 1); the per-player commission is rounded
    up to a whole minor unit and then doubled (¶22, ¶25, OQ 2); it never exceeds the amount
    passing (OQ 3). Play money, chips and tournament games carry none (¶24).

    >>> from croupier.game.money import CURRENCIES
    >>> backgammon_commission(1000, CURRENCIES["USD"])  # vector 1: $10 → $1.30, winner +$8.70
    BackgammonCommission(amount_passing=1000, per_player=65, total=130)
    """
    if amount_passing <= 0:
        raise Malformed(f"amount passing must be > 0, got {amount_passing}", "invalid_request")
    if tournament or not currency.carries_commission:
        return BackgammonCommission(amount_passing=amount_passing, per_player=0, total=0)
    scale = 10**currency.exponent
    major = Fraction(amount_passing, scale)
    if major < _BACKGAMMON_TIER:
        per_player = _ceil(_BACKGAMMON_FLAT_PER_PLAYER * scale)
    else:
        per_player = _ceil(major * _BACKGAMMON_RATE * scale)
    total = min(2 * per_player, amount_passing)
    return BackgammonCommission(amount_passing=amount_passing, per_player=per_player, total=total)


class RakePolicy:
    """A per-game rake rule: `rake(pot, currency)` gives minor units taken from a pot."""

    def rake(self, pot: int, currency: Currency) -> int:
        raise NotImplementedError


@dataclass(frozen=True, slots=True, kw_only=True)
class NoCommission(RakePolicy):
    def rake(self, pot: int, currency: Currency) -> int:
        return 0


@dataclass(frozen=True, slots=True, kw_only=True)
class PercentRake(RakePolicy):
    """`basis_points` of the pot (500 = 5%), rounded down, at most `cap` minor units.

    >>> from croupier.game.money import CURRENCIES
    >>> PercentRake(basis_points=500, cap=300).rake(1999, CURRENCIES["USD"])
    99
    >>> PercentRake(basis_points=500, cap=300).rake(100000, CURRENCIES["USD"])
    300
    >>> PercentRake(basis_points=500, cap=300).rake(100000, CURRENCIES["PLAY"])
    0
    """

    basis_points: int
    cap: int | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.basis_points <= 10_000 or (self.cap is not None and self.cap < 0):
            raise Malformed("rake basis points must be 0–10000 and the cap ≥ 0", "invalid_request")

    def rake(self, pot: int, currency: Currency) -> int:
        if pot <= 0 or not currency.carries_commission:
            return 0
        amount = pot * self.basis_points // 10_000
        return amount if self.cap is None else min(amount, self.cap)


@dataclass(frozen=True, slots=True, kw_only=True)
class FlatRake(RakePolicy):
    """A flat amount per pot (never more than the pot)."""

    amount: int

    def __post_init__(self) -> None:
        if self.amount < 0:
            raise Malformed("flat rake must be ≥ 0", "invalid_request")

    def rake(self, pot: int, currency: Currency) -> int:
        if pot <= 0 or not currency.carries_commission:
            return 0
        return min(self.amount, pot)


@dataclass(frozen=True, slots=True, kw_only=True)
class EntrySplit:
    """An entry (or rebuy) price split into the prize-pool part and the house fee."""

    prize_pool: int
    fee: int


def split_entry_price(*, buy_in: int, fee: int, currency: Currency) -> EntrySplit:
    """Seed 001 ¶24 / rule 45: a tournament's commission is shown as part of the entry price
    (entry price = buy-in to the prize pool + fee to the house). Play money and chips: no fee.

    >>> from croupier.game.money import CURRENCIES
    >>> split_entry_price(buy_in=1000, fee=100, currency=CURRENCIES["USD"])
    EntrySplit(prize_pool=1000, fee=100)
    """
    if buy_in < 0 or fee < 0 or buy_in + fee <= 0:
        raise Malformed("the buy-in and fee must be ≥ 0 and the entry price > 0", "invalid_request")
    if not currency.carries_commission:
        fee = 0
    return EntrySplit(prize_pool=buy_in, fee=fee)
