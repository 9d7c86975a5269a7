"""Currencies and amounts. Every amount is an integer number of minor units; never a float."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["CURRENCIES", "Currency", "CurrencyKind", "format_minor"]


class CurrencyKind(StrEnum):
    """Real money carries commission; play money and virtual chips never do."""

    REAL = "real"
    PLAY = "play"
    CHIP = "chip"


@dataclass(frozen=True, slots=True, kw_only=True)
class Currency:
    """A currency: ISO 4217 code for real money, `PLAY` for play money, `CHIP` for virtual chips.

    `exponent` is the number of decimal places of the minor unit (2 for USD cents).
    """

    code: str
    exponent: int
    kind: CurrencyKind

    @property
    def carries_commission(self) -> bool:
        return self.kind is CurrencyKind.REAL


#: The currencies seeded by the first migration (the database's `currencies` table is the
#: source of truth at run time; this mirror serves pure code and tests).
CURRENCIES: dict[str, Currency] = {
    c.code: c
    for c in (
        Currency(code="USD", exponent=2, kind=CurrencyKind.REAL),
        Currency(code="EUR", exponent=2, kind=CurrencyKind.REAL),
        Currency(code="GBP", exponent=2, kind=CurrencyKind.REAL),
        Currency(code="ILS", exponent=2, kind=CurrencyKind.REAL),
        Currency(code="JPY", exponent=0, kind=CurrencyKind.REAL),
        Currency(code="PLAY", exponent=0, kind=CurrencyKind.PLAY),
        Currency(code="CHIP", exponent=0, kind=CurrencyKind.CHIP),
    )
}


def format_minor(amount_minor: int, exponent: int) -> str:
    """Render minor units as a decimal string without floats: `format_minor(-870, 2) == "-8.70"`.

    >>> format_minor(5, 2), format_minor(-1234, 2), format_minor(7, 0)
    ('0.05', '-12.34', '7')
    """
    if exponent == 0:
        return str(amount_minor)
    sign = "-" if amount_minor < 0 else ""
    whole, fraction = divmod(abs(amount_minor), 10**exponent)
    return f"{sign}{whole}.{fraction:0{exponent}d}"
