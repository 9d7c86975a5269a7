"""The Joker deck: 36 cards, the two black sixes replaced by two jokers (base game item 2).

Suit cards rank A (high) K Q J T 9 8 7 6 (low); clubs and spades have no six, so the deck
holds 34 suit cards (A..7 in ♣ ♠, A..6 in ♦ ♥) and the jokers `X1`, `X2`. Cards use the
project's conformance notation: rank then suit (`Ah`, `Td`, `6h`), jokers `X1`, `X2`.

Every card is one shared immutable `Card` object, so cards compare by identity and by value
and can be used as dictionary keys. Pure: no I/O, no randomness.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "DECK",
    "JOKERS",
    "RANK_NAMES",
    "Card",
    "Suit",
    "UnknownCard",
    "card",
    "cards",
]


class Suit(StrEnum):
    """The four suits, by their one-letter conformance names."""

    CLUBS = "c"
    DIAMONDS = "d"
    HEARTS = "h"
    SPADES = "s"


# Rank numbers: 6..14 (A = 14). Jokers have rank 0 and no suit.
RANK_NAMES = {6: "6", 7: "7", 8: "8", 9: "9", 10: "T", 11: "J", 12: "Q", 13: "K", 14: "A"}
_RANK_BY_NAME = {name: rank for rank, name in RANK_NAMES.items()}


class UnknownCard(ValueError):
    """A card name that is not in the Joker deck (for example `6s`, replaced by a joker)."""


@dataclass(frozen=True, slots=True)
class Card:
    """One card of the Joker deck. `suit` is None and `rank` 0 for a joker."""

    code: str
    rank: int
    suit: Suit | None

    @property
    def is_joker(self) -> bool:
        return self.suit is None

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"

    def __reduce__(self) -> tuple[Callable[[str], Card], tuple[str]]:
        # Pickled by name, unpickled as the deck's own card: a snapshot of a table deep in
        # its game holds a few dozen cards, and rebuilding each one was most of decoding it.
        return card, (self.code,)


def _build_deck() -> tuple[Card, ...]:
    built: list[Card] = []
    for suit in Suit:
        lowest = 7 if suit in (Suit.CLUBS, Suit.SPADES) else 6
        for rank in range(14, lowest - 1, -1):
            built.append(Card(RANK_NAMES[rank] + suit.value, rank, suit))
    built.append(Card("X1", 0, None))
    built.append(Card("X2", 0, None))
    return tuple(built)


DECK: tuple[Card, ...] = _build_deck()
"""The 36 cards in a fixed canonical order (the order `fairness.shuffled` permutes)."""

JOKERS: tuple[Card, Card] = (DECK[-2], DECK[-1])

_BY_CODE = {c.code: c for c in DECK}


def card(code: str) -> Card:
    """The card named `code`; raises UnknownCard for a name outside the Joker deck."""
    found = _BY_CODE.get(code)
    if found is None:
        raise UnknownCard(f"{code!r} is not a card of the Joker deck")
    return found


def cards(codes: list[str] | tuple[str, ...]) -> tuple[Card, ...]:
    """Several cards by name, in order."""
    return tuple(card(code) for code in codes)


def suit_of(name: str) -> Suit:
    """The suit named by one letter (`c`, `d`, `h`, `s`); raises ValueError otherwise."""
    return Suit(name)


def rank_of(name: str) -> int:
    """The rank number of a rank name (`6`..`A`)."""
    return _RANK_BY_NAME[name]
