"""What distinguishes one rummy-family variant from another: a frozen table of settings.

Each variant module (`gin`, `oklahoma_gin`, `rummy`, `rummy51`, `rummy40`, `rummy500`)
builds one `VariantRules` and documents, with its source, every play rule it chose.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from croupier.rummy.core.cards import JOKER_BASE, Card, is_joker, rank_of
from croupier.rummy.core.melds import MeldRules

__all__ = ["DiscardTake", "Family", "VariantRules", "card_values"]


class Family(StrEnum):
    KNOCK = "knock"
    """Gin family: melds stay in hand until a knock; the defender lays off."""
    LAYDOWN = "laydown"
    """Rummy family: melds go on the table during play; first to empty the hand wins."""


class DiscardTake(StrEnum):
    """When a card taken from the discard pile must be melded in the same turn."""

    NEVER = "never"
    UNTIL_OPENED = "until_opened"
    ALWAYS = "always"


def card_values(*, ace: int, joker: int, face: int = 10) -> tuple[int, ...]:
    """Deadwood/penalty value of every card (index = card), 8 joker slots included."""
    values: list[int] = []
    for card in range(52):
        rank = rank_of(card)
        values.append(ace if rank == 1 else face if rank >= 11 else rank)
    values.extend([joker] * 8)
    return tuple(values)


@dataclass(frozen=True, kw_only=True)
class VariantRules:
    name: str
    """The conformance name: gin, oklahoma_gin, rummy, rummy51, rummy40, rummy500."""
    family: Family
    melds: MeldRules
    values: tuple[int, ...]
    """Penalty (deadwood) value per card, seed 000 §10 [10.d]."""
    decks: int = 1
    jokers: int = 0
    min_players: int = 2
    max_players: int = 2
    hand_size: tuple[int, ...] = (10,)
    """Cards dealt, indexed by number of players − 2 (last entry repeats)."""
    # Gin family
    knock_limit: int = 10
    oklahoma: bool = False
    ending_stock: int = 2
    """Gin: a discard that leaves this many cards in the stock ends the hand (no winner)."""
    # Rummy family
    opening_minimum: int = 0
    low_ace_opening_value: int = 1
    """Value of an ace played low (A-2-3) when counting an opening meld."""
    discard_take: DiscardTake = DiscardTake.NEVER
    whole_pile: bool = False
    """Rummy 500: any card of the discard pile may be taken, with every card above it."""
    layoff_discard_banned: bool = False
    """Rummy 40: a card the player could lay off on a meld on the table may not be
    discarded (the last card, which closes the round, excepted)."""
    reuse_discards: bool = True
    """When the stock runs out, the discard pile (but its top card) is turned to form a stock."""
    hand_bonus: int = 25
    """Negative points a Hand adds for each loser (seed 000 rule 29)."""
    scores_melds: bool = False
    """Rummy 500: melds and lay-offs score for the player who put them down."""

    def dealt(self, players: int) -> int:
        index = min(players - 2, len(self.hand_size) - 1)
        return self.hand_size[index]

    def value(self, card: Card) -> int:
        return self.values[card]

    def hand_value(self, cards: tuple[Card, ...] | list[Card]) -> int:
        return sum(self.values[card] for card in cards)

    def opening_value(self, stands_for: tuple[Card, ...], low: int, kind: str) -> int:
        """The value a meld counts towards the opening minimum (jokers as what they stand for)."""
        total = 0
        for index, card in enumerate(stands_for):
            if is_joker(card):  # pragma: no cover - stands_for never holds jokers
                total += self.values[JOKER_BASE]
            elif rank_of(card) == 1 and kind == "run" and low + index == 1:
                total += self.low_ace_opening_value
            else:
                total += self.values[card]
        return total
