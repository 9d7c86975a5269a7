"""The command log and the snapshot store kept in process memory (embedded mode, unit
tests)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import AsyncIterator, Collection, Mapping, Sequence

from croupier.table.adapters.log_codec import decode_table, encode
from croupier.table.core.log_entry import LogEntry, ReplayedTable
from croupier.table.ports import PartitionOwner, StoredSnapshots


class InMemoryCommandLog:
    """The log kept in process memory, one partition whose offsets are the records'
    positions. Survives host restarts within the process, which is enough to test
    rebuilding."""

    def __init__(self) -> None:
        self._records: list[tuple[str, bytes]] = []

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def append(self, entries: Sequence[LogEntry]) -> int:
        for entry in entries:
            self._records.append((entry.table_id, encode(entry)))
        return len(self._records) - 1

    def append_raw(self, table_id: str, data: bytes) -> None:
        """Store bytes as they are (tests use it to simulate a corrupted entry)."""
        self._records.append((table_id, data))

    def expire_before(self, offset: int, table_id: str | None = None) -> None:
        """Drop the records below `offset` (of `table_id` only, if given), as retention
        would; offsets stay where they were (tests simulate a lost history with it)."""
        self._records[:offset] = [
            (key, b"" if table_id in (None, key) else data) for key, data in self._records[:offset]
        ]

    def partition_of(self, table_id: str) -> int:
        return 0

    def end_offset(self, partition: int) -> int:
        return len(self._records)

    async def own_partitions(self, owner: PartitionOwner) -> None:
        await owner.partitions_assigned(frozenset({0}), frozenset())

    async def replay(
        self,
        partitions: Collection[int] | None = None,
        since: Mapping[int, int] | None = None,
        covered: Mapping[str, int] | None = None,
    ) -> AsyncIterator[ReplayedTable]:
        by_table: dict[str, list[bytes]] = defaultdict(list)
        last: dict[str, int] = {}
        covered = covered or {}
        for offset in range((since or {}).get(0, 0), len(self._records)):
            table_id, data = self._records[offset]
            if data and offset > covered.get(table_id, -1):
                by_table[table_id].append(data)
                last[table_id] = offset
        for table_id, raw_entries in by_table.items():
            yield decode_table(table_id, raw_entries, last[table_id])


class InMemorySnapshotStore:
    """The latest snapshot of each table, in process memory."""

    def __init__(self) -> None:
        self.snapshots: dict[str, tuple[int, bytes]] = {}
        self.watermarks: dict[int, int] = {}

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def save(self, table_id: str, partition: int, data: bytes) -> None:
        self.snapshots[table_id] = (partition, data)

    async def forget(self, table_id: str, partition: int) -> None:
        self.snapshots.pop(table_id, None)

    async def save_watermark(self, partition: int, offset: int) -> None:
        self.watermarks[partition] = offset

    async def load(self, partitions: Collection[int]) -> StoredSnapshots:
        return StoredSnapshots(
            tables={
                table_id: data
                for table_id, (partition, data) in self.snapshots.items()
                if partition in partitions
            },
            watermarks={p: o for p, o in self.watermarks.items() if p in partitions},
        )
