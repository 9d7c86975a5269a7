"""The hands of a game: how many cards each, grouped into pulkas (rule 2, BG 3).

Standard game: pulka 1 = 8 hands of 1, 2, …, 8 cards; pulka 2 = 4 nine-card hands;
pulka 3 = 8 hands of 8, 7, …, 1 cards; pulka 4 = 4 nine-card hands — 24 hands.
"Nines": 4 pulkas of 4 nine-card hands — 16 hands; each block of four is one pulka for
the premia (OQ 13). The dealer moves one seat clockwise after every hand (BG 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from croupier.joker.core.options import GameType

__all__ = ["HandSlot", "schedule"]


@dataclass(frozen=True, slots=True)
class HandSlot:
    """Hand `index` (0-based in the game) is hand `position` of pulka `pulka` (0-based)."""

    index: int
    pulka: int
    position: int
    cards: int
    last_of_pulka: bool


_PULKAS = {
    GameType.STANDARD: ((1, 2, 3, 4, 5, 6, 7, 8), (9,) * 4, (8, 7, 6, 5, 4, 3, 2, 1), (9,) * 4),
    GameType.NINES: ((9,) * 4,) * 4,
}


@cache
def schedule(game_type: GameType) -> tuple[HandSlot, ...]:
    """Every hand of a game of this type, in order.

    >>> [s.cards for s in schedule(GameType.STANDARD)][:10]
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 9]
    >>> len(schedule(GameType.STANDARD)), len(schedule(GameType.NINES))
    (24, 16)
    """
    slots: list[HandSlot] = []
    for pulka, sizes in enumerate(_PULKAS[game_type]):
        for position, cards in enumerate(sizes):
            last = position == len(sizes) - 1
            slots.append(HandSlot(len(slots), pulka, position, cards, last))
    return tuple(slots)
