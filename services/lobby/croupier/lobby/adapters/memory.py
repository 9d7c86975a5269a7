"""An in-memory repository for unit tests (the same contract as the PostgreSQL one)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from croupier.lobby.core.free_seats import SeatCount, seat_count
from croupier.lobby.core.policy import AccountLimits
from croupier.lobby.core.ratings import Rating
from croupier.lobby.service.ports import Conflict, RatingUpdate
from croupier.lobby.service.records import (
    TableRecord,
    TicketRecord,
    TicketStatus,
    WaitingEntry,
)

__all__ = ["InMemoryRepository"]


class InMemoryRepository:
    def __init__(self) -> None:
        self.tables: dict[str, TableRecord] = {}
        self.tickets_by_id: dict[str, TicketRecord] = {}
        self.account_limits: dict[str, AccountLimits] = {}
        self.player_ratings: dict[tuple[str, str], Rating] = {}
        self.rated: set[str] = set()
        self.waiting_entries: dict[tuple[str, str], WaitingEntry] = {}
        self.queues: dict[str, tuple[int, str]] = {}
        self.queue_counts: dict[str, int] = {}
        """Per tournament a queue fills: its players as last counted."""
        self._changes = 0

    def _changed(self, record: TableRecord) -> TableRecord:
        self._changes += 1
        stored = replace(record, change=self._changes)
        self.tables[record.table.table_id] = stored
        return stored

    async def add_table(self, record: TableRecord) -> tuple[TableRecord, bool]:
        known = await self.table_by_key(record.request_key)
        if known is not None:
            return known, False
        return self._changed(record), True

    async def table(self, table_id: str) -> TableRecord | None:
        return self.tables.get(table_id)

    async def table_by_key(self, request_key: str) -> TableRecord | None:
        return next((r for r in self.tables.values() if r.request_key == request_key), None)

    async def save_table(self, record: TableRecord) -> TableRecord:
        if self.tables[record.table.table_id].version != record.version - 1:
            raise Conflict("the table changed meanwhile; retry")
        return self._changed(record)

    async def open_tables(self) -> list[TableRecord]:
        return [r for r in self.tables.values() if not r.table.closed]

    async def held_tables(self) -> list[TableRecord]:
        return [r for r in await self.open_tables() if r.table.holds]

    async def seat_counts(self) -> tuple[list[SeatCount], int]:
        counts = [
            seat_count(r.table, r.version) for r in self.tables.values() if not r.table.closed
        ]
        return counts, self._changes

    async def changed_since(self, change: int) -> list[TableRecord]:
        return sorted((r for r in self.tables.values() if r.change > change), key=_change)

    async def add_ticket(self, record: TicketRecord) -> tuple[TicketRecord, bool]:
        known = next(
            (r for r in self.tickets_by_id.values() if r.request_key == record.request_key), None
        )
        if known is not None:
            return known, False
        self.tickets_by_id[record.ticket.ticket_id] = record
        return record, True

    async def ticket(self, ticket_id: str) -> TicketRecord | None:
        return self.tickets_by_id.get(ticket_id)

    async def save_tickets(self, records: Sequence[TicketRecord]) -> None:
        for record in records:
            if self.tickets_by_id[record.ticket.ticket_id].version != record.version - 1:
                raise Conflict("the ticket changed meanwhile; retry")
        for record in records:
            self.tickets_by_id[record.ticket.ticket_id] = record

    async def tickets(self, *statuses: TicketStatus) -> list[TicketRecord]:
        found = [r for r in self.tickets_by_id.values() if r.status in statuses]
        return sorted(found, key=lambda r: (r.ticket.created, r.ticket.ticket_id))

    async def last_opponents(self, player: str) -> frozenset[str]:
        seated = [r for r in self.tickets_by_id.values() if r.status is TicketStatus.SEATED]
        mine = [r for r in seated if r.ticket.player == player]
        if not mine:
            return frozenset()
        latest = max(mine, key=lambda r: (r.ticket.created, r.ticket.ticket_id)).match_id
        return frozenset(r.ticket.player for r in seated if r.match_id == latest) - {player}

    async def ratings(self, game: str, players: Sequence[str]) -> dict[str, Rating]:
        found = ((p, self.player_ratings.get((game, p))) for p in players)
        return {player: rating for player, rating in found if rating is not None}

    async def rate(
        self,
        result_id: str,
        game: str,
        players: Sequence[str],
        start: Rating,
        update: RatingUpdate,
    ) -> bool:
        if result_id in self.rated:
            return False
        self.rated.add(result_id)
        now = {p: self.player_ratings.get((game, p), start) for p in players}
        for player, rating in update(now).items():
            self.player_ratings[(game, player)] = rating
        return True

    async def add_waiting(self, entry: WaitingEntry) -> bool:
        return self.waiting_entries.setdefault((entry.list_key, entry.player), entry) is entry

    async def waiting(self, list_key: str | None = None) -> list[WaitingEntry]:
        found = [e for e in self.waiting_entries.values() if list_key in (None, e.list_key)]
        return sorted(found, key=lambda e: (e.created, e.list_key, e.player))

    async def remove_waiting(self, list_key: str, player: str) -> bool:
        return self.waiting_entries.pop((list_key, player), None) is not None

    async def queue_position(self, queue_id: str) -> tuple[int, str]:
        return self.queues.get(queue_id, (0, ""))

    async def move_queue(self, queue_id: str, sequence: int, tournament_id: str) -> tuple[int, str]:
        stored, known = self.queues.get(queue_id, (-1, ""))
        if stored < sequence or (stored == sequence and not known):
            self.queues[queue_id] = (sequence, tournament_id)
        return self.queues[queue_id]

    async def queue_waiting(self, queue_id: str) -> int:
        _, tournament_id = self.queues.get(queue_id, (0, ""))
        return self.queue_counts.get(tournament_id, 0)

    async def fills(self, tournament_id: str) -> bool:
        return any(t == tournament_id for _, t in self.queues.values())

    async def set_queue_waiting(self, tournament_id: str, waiting: int) -> None:
        if await self.fills(tournament_id):
            self.queue_counts[tournament_id] = waiting

    async def limits(self, player: str) -> AccountLimits:
        return self.account_limits.get(player, AccountLimits())

    async def set_limits(self, player: str, limits: AccountLimits) -> None:
        self.account_limits[player] = limits


def _change(record: TableRecord) -> int:
    return record.change
