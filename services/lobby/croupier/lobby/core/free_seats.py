"""Where a quick seat finds a free seat without reading every table: the public, open
tables with a seat free, per waiting list (`list_key`: the game's kind, currency and
stake), the fullest first (a player sits where a game starts soonest), then the oldest.

The index is a copy of what the store says, kept by the code that saves the tables
(`note` each record saved or read, newer versions only) and rebuilt from the store's
seat counts at start; the store stays the truth, so a seat found here is checked again
when it is held. `claim` counts a seat as taken the moment it is handed out, so joins
running at the same time are handed different seats; `unclaim` gives it back once the
join has saved its hold (or failed). Picking is O(log n): a heap per list whose entries
are replaced, not updated (a table's old entry is skipped when it comes up; the heap is
rebuilt when stale entries outnumber the tables of its list).
"""

from __future__ import annotations

import heapq
import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass

from croupier.lobby.core.seats import LobbyTable
from croupier.lobby.core.terms import Terms

__all__ = ["FreeSeats", "SeatCount", "list_key", "list_key_of", "seat_count"]


def list_key(terms: Terms) -> str:
    """The waiting list of tables with these terms: same kind, currency and stake."""
    return list_key_of(terms.shape, terms.currency, terms.stake)


def list_key_of(shape: str, currency: str, stake: int) -> str:
    return json.dumps([shape, currency, stake])


@dataclass(frozen=True)
class SeatCount:
    """A table as the index needs it: its list, its version and its free seats (none at
    a private table: no quick seat there)."""

    table_id: str
    list_key: str
    version: int
    free: int
    closed: bool = False


def seat_count(table: LobbyTable, version: int) -> SeatCount:
    free = 0 if table.private else table.free_seats()
    return SeatCount(table.table_id, list_key(table.terms), version, free, table.closed)


@dataclass
class _Known:
    key: str
    version: int
    free: int
    """Free seats as last saved (0 for a closed or private table)."""
    order: int
    """When the index first saw the table: older tables first among equally full ones."""
    closed: bool = False
    claimed: int = 0

    def left(self) -> int:
        return self.free - self.claimed


class FreeSeats:
    def __init__(self) -> None:
        self._known: dict[str, _Known] = {}
        self._tables: dict[str, set[str]] = {}
        """Per list, the tables known in it (free or not)."""
        # Per list: (seats left, order, table id); an entry is live while it matches.
        self._heaps: dict[str, list[tuple[int, int, str]]] = {}
        self._orders = itertools.count()

    def __len__(self) -> int:
        return len(self._known)

    def note(self, table: SeatCount) -> None:
        """What the store holds for a table at a version (an older version is ignored)."""
        known = self._known.get(table.table_id)
        if known is not None and known.version > table.version:
            return
        if known is None:
            if table.closed:
                return
            known = _Known(table.list_key, table.version, 0, next(self._orders))
            self._known[table.table_id] = known
            self._tables.setdefault(known.key, set()).add(table.table_id)
        known.version, known.closed, known.free = table.version, table.closed, table.free
        self._settle(table.table_id, known)

    def claim(self, key: str, passed: Iterable[str] = ()) -> str | None:
        """Hand out a seat of the fullest table of list `key` with one left, except the
        tables `passed` (the player sits there already); None if there is none."""
        heap = self._heaps.get(key, [])
        passed = frozenset(passed)
        skipped: list[tuple[int, int, str]] = []
        found = None
        while found is None and self._cleaned(heap):
            entry = heapq.heappop(heap)
            if entry[2] in passed:
                skipped.append(entry)
            else:
                found = entry[2]
                known = self._known[found]
                known.claimed += 1
                self._settle(found, known)
        for entry in skipped:
            heapq.heappush(heap, entry)
        return found

    def unclaim(self, table_id: str) -> None:
        """A seat handed out by `claim` is saved as held, or was not taken."""
        known = self._known[table_id]
        known.claimed -= 1
        self._settle(table_id, known)

    def has_seat(self, key: str) -> bool:
        """Whether a table of list `key` has a seat left."""
        return self._cleaned(self._heaps.get(key, []))

    def lists_with_seats(self) -> list[str]:
        """The lists that have a free seat now."""
        return [key for key, heap in self._heaps.items() if self._cleaned(heap)]

    def _cleaned(self, heap: list[tuple[int, int, str]]) -> bool:
        """Drop the stale entries from the top of `heap`; whether a live one is left."""
        while heap:
            known = self._known.get(heap[0][2])
            if known is not None and (known.left(), known.order) == heap[0][:2]:
                return True
            heapq.heappop(heap)
        return False

    def _settle(self, table_id: str, known: _Known) -> None:
        """Index the table as it is now: forgotten once closed and not being joined, in its
        list's heap while a seat is left (an older entry, if any, is stale from now on)."""
        if known.closed and not known.claimed:
            del self._known[table_id]
            self._tables[known.key].discard(table_id)
            return
        if known.left() <= 0:
            return
        heap = self._heaps.setdefault(known.key, [])
        heapq.heappush(heap, (known.left(), known.order, table_id))
        if len(heap) > 64 and len(heap) > 2 * len(self._tables[known.key]):
            self._rebuild(known.key)

    def _rebuild(self, key: str) -> None:
        heap = []
        for table_id in self._tables[key]:
            known = self._known[table_id]
            if known.left() > 0:
                heap.append((known.left(), known.order, table_id))
        heapq.heapify(heap)
        self._heaps[key] = heap
