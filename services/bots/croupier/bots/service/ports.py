"""What the bots need from the world: the lobby (to take a seat), the table host as one
seat sees it (that seat's views, its actions), the time, a pause, and fresh bot names."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

__all__ = ["Clock", "Lobby", "Names", "SeatHost", "SeatUpdate", "Sleep"]

JSON = dict[str, Any]
Clock = Callable[[], datetime]
"""The time now, timezone-aware (tests step it by hand)."""
Sleep = Callable[[float], Awaitable[None]]
"""Pause this many seconds (a bot thinking)."""
Names = Callable[[], str]
"""A fresh bot account id."""


@dataclass(frozen=True)
class SeatUpdate:
    """One message the host sent a seat: its view (JSON), the view's version, and whether
    the table is closed."""

    version: int
    view: JSON
    closed: bool


class Lobby(Protocol):
    async def seat_bot(self, *, table_id: str, bot: str, stack: int) -> int:
        """Seat `bot` (labelled BOT) through the lobby; its seat. Refusals are
        `croupier.game.RuleBroken` kinds; an unreachable lobby `Unavailable`."""
        ...


class SeatHost(Protocol):
    """The table host's `TableEngine` for one seated player: his own view, his actions."""

    def watch(self, table_id: str, player: str) -> AsyncIterator[SeatUpdate]:
        """`player`'s view now, then one per change, until the table closes."""
        ...

    async def act(self, table_id: str, player: str, command_id: str, action: JSON) -> None:
        """`player`'s action; a refusal is a `RuleBroken` kind."""
        ...
