"""A Joker table's state: four seats and, once it started, the game (`core.game`).

Its rules (seating, starting the game, what is read from it) are `core.table_rules`.
"""

from __future__ import annotations

from dataclasses import dataclass

from croupier.joker.core import game
from croupier.joker.core.options import Options

__all__ = ["JokerTable"]


@dataclass(frozen=True)
class JokerTable:
    options: Options
    # Seat number → player; the game's clockwise order is the order of seat numbers.
    seats: tuple[tuple[int, str], ...] = ()
    game: game.GameState | None = None
    hands_started: int = 0

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(player for _, player in sorted(self.seats))
