"""Cards as small integers: `rank * 4 + suit` (2 = rank 0 … A = rank 12; c d h s = suit 0..3).

This is the encoding of the `phevaluator` C extension, so evaluation needs no conversion.
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "23456789TJQKA"
SUITS = "cdhs"

NAMES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
_BY_NAME: dict[str, int] = {name: i for i, name in enumerate(NAMES)}
DECK: tuple[int, ...] = tuple(range(52))


class BadCard(ValueError):
    """A card name that is not rank (2-9, T, J, Q, K, A) + suit (c, d, h, s)."""


def parse(name: str) -> int:
    """`"Ah"` -> 50."""
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise BadCard(f"bad card name {name!r}") from None


def parse_all(names: Iterable[str]) -> tuple[int, ...]:
    return tuple(parse(n) for n in names)


def name(card: int) -> str:
    return NAMES[card]


def names(cards: Iterable[int]) -> list[str]:
    return [NAMES[c] for c in cards]


def rank(card: int) -> int:
    return card >> 2


def suit(card: int) -> int:
    return card & 3
