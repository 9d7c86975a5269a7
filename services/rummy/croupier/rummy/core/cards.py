"""Cards of the rummy family as small integers, and their names in conformance notation.

A natural card is `suit * 13 + (rank - 1)` with ranks 1 (ace) .. 13 (king) and suits in
the order clubs, diamonds, hearts, spades (0..51). Jokers are 52.. (`X1` = 52, `X2` = 53,
...). Two-deck games hold two copies of a natural card; the copies are the same integer
(hands are multisets), which is also how the conformance notation writes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = [
    "JOKER_BASE",
    "RANK_CHARS",
    "SUIT_CHARS",
    "Card",
    "CardError",
    "card_name",
    "card_names",
    "is_joker",
    "make_card",
    "parse_card",
    "parse_cards",
    "rank_of",
    "sort_key",
    "standard_deck",
    "suit_of",
]

Card = int
"""A card: 0..51 natural, 52.. joker."""

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "cdhs"
JOKER_BASE = 52


class CardError(ValueError):
    """A card name that is not in the notation (`7h`, `Td`, `X1`)."""


def make_card(rank: int, suit: int) -> Card:
    """The natural card of `rank` (1 = ace .. 13 = king) and `suit` (0..3)."""
    return suit * 13 + rank - 1


def is_joker(card: Card) -> bool:
    return card >= JOKER_BASE


def rank_of(card: Card) -> int:
    """1 (ace) .. 13 (king); jokers have no rank (0)."""
    return 0 if card >= JOKER_BASE else card % 13 + 1


def suit_of(card: Card) -> int:
    """0..3 (c, d, h, s); jokers have no suit (-1)."""
    return -1 if card >= JOKER_BASE else card // 13


def parse_card(name: str) -> Card:
    """`"7h"` → card; `"X1"`..`"X4"` → the jokers. Raises CardError on anything else."""
    if not isinstance(name, str) or len(name) != 2:
        raise CardError(f"bad card {name!r}")
    if name[0] in "Xx" and name[1] in "1234":
        return JOKER_BASE + int(name[1]) - 1
    rank = RANK_CHARS.find(name[0].upper())
    suit = SUIT_CHARS.find(name[1].lower())
    if rank < 0 or suit < 0:
        raise CardError(f"bad card {name!r}")
    return make_card(rank + 1, suit)


def parse_cards(names: Iterable[str]) -> list[Card]:
    return [parse_card(name) for name in names]


def card_name(card: Card) -> str:
    if card >= JOKER_BASE:
        return f"X{card - JOKER_BASE + 1}"
    return RANK_CHARS[card % 13] + SUIT_CHARS[card // 13]


def card_names(cards: Iterable[Card]) -> list[str]:
    return [card_name(card) for card in cards]


def sort_key(card: Card) -> tuple[int, int]:
    """Display order: by suit, then rank, jokers last."""
    return (4, card) if card >= JOKER_BASE else (card // 13, card % 13)


def standard_deck(decks: int = 1, jokers: int = 0) -> list[Card]:
    """`decks` 52-card packs and `jokers` jokers (X1..Xn), in a fixed order (shuffle outside)."""
    cards: list[Card] = [card for _ in range(decks) for card in range(52)]
    cards.extend(JOKER_BASE + index for index in range(jokers))
    return cards


def count_of(cards: Sequence[Card], card: Card) -> int:
    return sum(1 for held in cards if held == card)
