"""The command log kept in process memory (embedded mode, unit tests)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import AsyncIterator, Collection, Sequence

from croupier.table.adapters.log_codec import decode_table, encode
from croupier.table.core.log_entry import LogEntry, ReplayedTable
from croupier.table.ports import PartitionOwner


class InMemoryCommandLog:
    """The log kept in process memory (embedded mode, unit tests). Survives host restarts
    within the process, which is enough to test rebuilding."""

    def __init__(self) -> None:
        self._entries: dict[str, list[bytes]] = defaultdict(list)

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def append(self, entries: Sequence[LogEntry]) -> None:
        for entry in entries:
            self._entries[entry.table_id].append(encode(entry))

    def append_raw(self, table_id: str, data: bytes) -> None:
        """Store bytes as they are (tests use it to simulate a corrupted entry)."""
        self._entries[table_id].append(data)

    def partition_of(self, table_id: str) -> int:
        return 0

    async def own_partitions(self, owner: PartitionOwner) -> None:
        await owner.partitions_assigned(frozenset({0}), frozenset())

    async def replay(
        self, partitions: Collection[int] | None = None
    ) -> AsyncIterator[ReplayedTable]:
        for table_id, raw_entries in list(self._entries.items()):
            yield decode_table(table_id, raw_entries)
