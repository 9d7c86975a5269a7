"""What the lobby's use cases need from the world: where tables, tickets and account limits
are kept, the table host, the time and fresh invitation codes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from croupier.kit.errors import Unavailable
from croupier.lobby.core.free_seats import SeatCount
from croupier.lobby.core.policy import AccountLimits
from croupier.lobby.core.ratings import Rating
from croupier.lobby.service.records import (
    TableRecord,
    TicketRecord,
    TicketStatus,
    WaitingEntry,
)

__all__ = [
    "Clock",
    "Codes",
    "Conflict",
    "Director",
    "QueueTemplate",
    "RatingUpdate",
    "Repository",
    "TableClock",
    "TableHost",
    "TickLock",
]

Clock = Callable[[], datetime]
"""The time now, timezone-aware (tests step it by hand)."""
Codes = Callable[[], str]
"""A fresh, unguessable invitation code."""
JSON = Mapping[str, object]
RatingUpdate = Callable[[Mapping[str, Rating]], Mapping[str, Rating]]
"""The players' ratings after a result, from their ratings before it."""
TickLock = Callable[[], AbstractAsyncContextManager[bool]]
"""Held by one lobby replica at a time, for one tick: whether this replica got it (the
others skip the tick's work). Released when the tick ends or the replica dies."""


class Conflict(Unavailable):
    """Another lobby replica changed the record since it was read: retry the request."""


@dataclass(frozen=True)
class TableClock:
    """The table's clocks in seconds; zero takes the game's default."""

    turn_seconds: int = 0
    reserve_seconds: int = 0
    reconnect_seconds: int = 0


class TableHost(Protocol):
    """The table host's `TableEngine`, as far as the lobby drives it (architecture §8).
    Refusals are `RuleBroken` kinds; an unreachable host is `Unavailable`."""

    async def open_table(
        self, *, game: str, options: JSON, clock: TableClock, request_key: str
    ) -> str:
        """Open a table (once per `request_key`); its id."""
        ...

    async def seat(
        self, *, table_id: str, player: str, seat: int, stack: int, is_bot: bool = False
    ) -> None:
        """Seat `player` (the host buys his `stack` in through the wallet at cash tables);
        `is_bot` labels the seat BOT."""
        ...

    async def is_seated(self, table_id: str, player: str) -> bool:
        """Whether the host has seated `player` at the table (asked when a lobby finds a
        seat it held but never heard the host's answer for)."""
        ...

    async def close_table(self, table_id: str) -> None: ...


@dataclass(frozen=True)
class QueueTemplate:
    """A Sit & Go or Spin queue's tournament (service/queues.py): what the listing shows,
    and `settings`, the director's `TournamentSettings` as JSON, less its start time."""

    queue_id: str
    name: str
    game: str
    variant: str
    kind: str
    currency: str
    buy_in: int
    fee: int
    players: int
    settings: JSON


class Director(Protocol):
    """The tournament director's `TournamentDirector`, as far as the queues drive it.
    Its refusals come back as `RuleBroken` kinds with its reason; unreachable, `Unavailable`."""

    async def create(
        self, *, request_key: str, template: QueueTemplate, start_time: datetime
    ) -> str:
        """Create the template's tournament (once per `request_key`); its id."""
        ...

    async def register(self, tournament_id: str, player: str) -> int:
        """Register `player` (the wallet takes buy-in and fee); players registered now."""
        ...

    async def unregister(self, tournament_id: str, player: str) -> None: ...

    async def registered(self, tournament_id: str) -> int:
        """Players registered in the tournament now."""
        ...

    async def final_places(self, tournament_id: str) -> tuple[str, list[tuple[str, int]]]:
        """A finished tournament's game and each entrant's place (ties share one); an
        empty list while its ranking is not final."""
        ...


class Repository(Protocol):
    async def add_table(self, record: TableRecord) -> tuple[TableRecord, bool]:
        """Store a new table and answer (it, True); if its `request_key` is taken, store
        nothing and answer (the one stored, False)."""
        ...

    async def table(self, table_id: str) -> TableRecord | None: ...

    async def table_by_key(self, request_key: str) -> TableRecord | None: ...

    async def save_table(self, record: TableRecord) -> TableRecord:
        """Replace the stored version `record.version - 1`; the record as stored (with its
        change number); `Conflict` if the stored version is another."""
        ...

    async def open_tables(self) -> list[TableRecord]:
        """Every table not closed, oldest first."""
        ...

    async def held_tables(self) -> list[TableRecord]:
        """The open tables with a seat held."""
        ...

    async def seat_counts(self) -> tuple[list[SeatCount], int]:
        """Every open table's free seats (the free-seat index's start), and the highest
        change number they include."""
        ...

    async def changed_since(self, change: int) -> list[TableRecord]:
        """Tables saved after change number `change`, in change order."""
        ...

    async def add_ticket(self, record: TicketRecord) -> tuple[TicketRecord, bool]:
        """Like `add_table`, by the ticket's `request_key`."""
        ...

    async def ticket(self, ticket_id: str) -> TicketRecord | None: ...

    async def save_tickets(self, records: Sequence[TicketRecord]) -> None:
        """Replace each stored version `version - 1`, all or none (`Conflict`)."""
        ...

    async def tickets(self, *statuses: TicketStatus) -> list[TicketRecord]:
        """Tickets in one of `statuses`, oldest first."""
        ...

    async def last_opponents(self, player: str) -> frozenset[str]:
        """The other players of the latest match `player` was seated at (none yet: empty)."""
        ...

    async def ratings(self, game: str, players: Sequence[str]) -> dict[str, Rating]:
        """The stored ratings at `game` of those of `players` rated there."""
        ...

    async def rate(
        self,
        result_id: str,
        game: str,
        players: Sequence[str],
        start: Rating,
        update: RatingUpdate,
    ) -> bool:
        """Once per `result_id`: store what `update` makes of the `players`' ratings at
        `game` (`start` for the unrated), read and written with nobody changing them in
        between; False, and nothing stored, if that result was rated already."""
        ...

    async def add_waiting(self, entry: WaitingEntry) -> bool:
        """Put `entry` at the end of its list; False (nothing stored) if its player is on
        that list already."""
        ...

    async def waiting(self, list_key: str | None = None) -> list[WaitingEntry]:
        """The entries of the list `list_key` (None: of every list), oldest first."""
        ...

    async def remove_waiting(self, list_key: str, player: str) -> bool:
        """Take `player` off the list; whether he was on it."""
        ...

    async def queue_position(self, queue_id: str) -> tuple[int, str]:
        """The queue's filling tournament: its sequence number and id ((0, "") at first)."""
        ...

    async def move_queue(self, queue_id: str, sequence: int, tournament_id: str) -> tuple[int, str]:
        """Store the queue's position unless it is behind the stored one (a smaller
        sequence, or the same one whose tournament is known already); the position stored."""
        ...

    async def queue_waiting(self, queue_id: str) -> int:
        """The players in the queue's filling tournament, as last counted (0 when it moves
        on to a new one)."""
        ...

    async def fills(self, tournament_id: str) -> bool:
        """Whether `tournament_id` is a queue's filling tournament."""
        ...

    async def set_queue_waiting(self, tournament_id: str, waiting: int) -> None:
        """Count `waiting` players in the queue filling `tournament_id` (none: no change)."""
        ...

    async def limits(self, player: str) -> AccountLimits: ...

    async def set_limits(self, player: str, limits: AccountLimits) -> None: ...
