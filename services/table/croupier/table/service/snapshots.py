"""Snapshots of the tables a replica serves, so that rebuilding a table costs its latest
snapshot and the log's tail, not its whole history.

A snapshot holds the table's state and the command-log offset up to which the table's
partition is in it. It is taken when a table opens, every `every` commands, at the end of
a hand once `at_hand_end_after` commands passed since the last one, and when the table
closes. A sweep every `sweep_seconds` snapshots again the tables with entries no snapshot
holds (an idle table mid-hand) and those whose snapshot lags the partition's end by more
than `lag_records` (an idle table in a busy partition), at most `sweep_per_second` of them
a second (a sweep's snapshots in one burst stalled the calls being served): a rebuild
reads a partition from the oldest offset its open tables' snapshots hold, which the sweep
keeps near the end.
That is also what makes retention safe: no open table needs a record older than a sweep
or two, so the log's head may expire (`adapters.kafka_topics` checks the settings).

A closed table stays served (its final view, its hand histories) for `closed_kept_seconds`
after a sweep first saw it closed. Then the sweep retires it: its snapshot is forgotten in
the store and it leaves memory, so neither a replica's memory nor a rebuild's work grows
with every table ever played. It retires only once it lies wholly before its partition's
watermark, which the sweep saves first: the offset the partition's open tables' stored
snapshots all cover (or the partition's end, with none open). A rebuild never reads the
log before that watermark, so a retired table's records are never taken for a table to
rebuild.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

import structlog

from croupier.kit.tasks import Pacer, Periodic
from croupier.table.adapters import metrics
from croupier.table.adapters.snapshot_codec import (
    SnapshotHeader,
    TableSnapshot,
    encode,
)
from croupier.table.ports import CommandLog, SnapshotStore
from croupier.table.service.tables import HostedTable, Tables
from croupier.table.service.views import ViewHub

log = structlog.get_logger("croupier.table.snapshots")

# A snapshot keeps the ids of this many latest commands (a client's retry of an older one
# after a rebuild is taken as new): what it holds does not grow with the table's age.
SEEN_COMMANDS_KEPT = 32
STOP_SAVE_SECONDS = 10.0
# A sweep lets the event loop run after looking at this many tables, and spreads the
# snapshots it takes: `SWEEP_BATCH` at a time (encoded, their saves queued: 50-100 us
# each), at `SnapshotPolicy.sweep_per_second`. At human pace nearly every table has
# entries no snapshot holds when the sweep comes: a sweep of 4,000 tables in one go held
# the loop for 0.4-0.9 s and sent the broker 10 MB at once, every 30 s, and the `Act`
# calls behind it were the host's p99 (132 of its 152 calls over 50 ms in one step).
SWEEP_YIELD_AFTER = 200
SWEEP_BATCH = 20


@dataclass(frozen=True)
class SnapshotPolicy:
    every: int = 200
    at_hand_end_after: int = 20
    sweep_seconds: float = 30.0
    lag_records: int = 10_000
    closed_kept_seconds: float = 3600.0
    # 10,000 tables in 25 s, within `sweep_seconds`.
    sweep_per_second: float = 400.0


DEFAULT_SNAPSHOT_POLICY = SnapshotPolicy()


def snapshot_of(table: HostedTable, offset: int) -> TableSnapshot:
    state = table.state
    oldest_kept = state.index - SEEN_COMMANDS_KEPT
    return TableSnapshot(
        header=SnapshotHeader(
            table_id=state.table_id,
            game=state.game,
            engine=table.engine.name,
            engine_version=table.engine.version,
            index=state.index,
            offset=offset,
            closed=state.closed,
        ),
        state=state,
        seen_commands={c: i for c, i in table.seen_commands.items() if i > oldest_kept},
        seats_taken=dict(table.seats_taken),
        last_money_requests=list(table.last_money_requests),
    )


class Snapshots:
    def __init__(
        self,
        store: SnapshotStore | None,
        command_log: CommandLog,
        tables: Tables,
        policy: SnapshotPolicy,
        now_ms: Callable[[], int],
    ) -> None:
        self._store = store
        self._log = command_log
        self._tables = tables
        self.policy = policy
        self._now_ms = now_ms
        self._saving: set[asyncio.Task[None]] = set()
        self._sweeper = Periodic(
            self.sweep,
            policy.sweep_seconds,
            name="table-snapshot-sweep",
            failure="snapshot sweep failed",
            log=logging.getLogger("croupier.table.snapshots"),
        )

    def start(self) -> None:
        if self._store is not None:
            self._sweeper.start()

    async def stop(self) -> None:
        """Stop sweeping; wait (a while) for the snapshots being written."""
        await self._sweeper.stop()
        await self._written()

    async def _written(self) -> None:
        """Wait (at most `STOP_SAVE_SECONDS`) for the snapshots being written."""
        if self._saving:
            await asyncio.wait(set(self._saving), timeout=STOP_SAVE_SECONDS)

    def after_commit(self, table: HostedTable, hand_ended: bool) -> None:
        """The table committed entries (its lock held): snapshot it if the policy says so."""
        since = table.state.index - table.snapshot_index
        if (
            table.snapshot_index == 0
            or table.state.closed
            or since >= self.policy.every
            or (hand_ended and since >= self.policy.at_hand_end_after)
        ):
            self.take(table, table.last_offset)

    def take(self, table: HostedTable, offset: int) -> None:
        """Snapshot the table as it is now (its lock held), as holding the partition up to
        `offset`; the store writes it in the background (in order: a table's snapshots
        are queued to the store in the order they were taken)."""
        if self._store is None:
            return
        data = encode(snapshot_of(table, offset))
        table.snapshot_index, table.covered_offset = table.state.index, offset
        table_id = table.state.table_id
        saving = asyncio.create_task(self._save(table, table_id, data, offset))
        self._saving.add(saving)
        saving.add_done_callback(self._saving.discard)

    async def _save(self, table: HostedTable, table_id: str, data: bytes, offset: int) -> None:
        assert self._store is not None
        try:
            await self._store.save(table_id, self._log.partition_of(table_id), data)
        except Exception as exc:  # noqa: BLE001 - the sweep takes another one
            log.error("snapshot not stored", table_id=table_id, error=str(exc))
            table.covered_offset = -1
            return
        table.stored_offset = max(table.stored_offset, offset)
        metrics.SNAPSHOTS_STORED.labels(table.state.game).inc()

    async def sweep(self) -> None:
        """Snapshot again the open tables a rebuild would otherwise read far back for, then
        save the partitions' watermarks and retire the closed tables kept long enough."""
        looked_at = Pacer(SWEEP_YIELD_AFTER).step
        taken = Pacer(SWEEP_BATCH, SWEEP_BATCH / self.policy.sweep_per_second).step
        for table in list(self._tables.serving.values()):
            await looked_at()
            if not self._lags(table):
                continue
            async with table.lock:
                if not self._lags(table):
                    continue
                # Every entry of the table is at or below `last_offset` (none is in flight:
                # its lock is held), so its state holds the partition up to the end this
                # replica knows.
                end = self._log.end_offset(self._log.partition_of(table.state.table_id))
                self.take(table, max(end - 1, table.last_offset))
            await taken()

        if self._store is None:
            return
        await self._written()  # the snapshots just taken count once stored
        watermarks = await self._save_watermarks()
        now = self._now_ms()
        for table in list(self._tables.serving.values()):
            if self._retires(table, now, watermarks):
                await self._retire(table)

    async def _save_watermarks(self) -> dict[int, int]:
        """Save each owned partition's watermark; the watermarks saved."""
        assert self._store is not None
        # No table is being opened meanwhile: one opened after this is wholly past the
        # partition's end read here.
        async with self._tables.opening:
            watermarks = {p: self._watermark(p) for p in self._tables.owned}
        saved: dict[int, int] = {}
        for partition, offset in watermarks.items():
            if offset is not None:
                # Saved at every sweep (a record per partition): another replica that
                # held the partition meanwhile may have saved an older one.
                await self._store.save_watermark(partition, offset)
                saved[partition] = offset
        return saved

    def _watermark(self, partition: int) -> int | None:
        """The oldest offset an open table of `partition` needs; its end with none open;
        None while an open table has no snapshot stored yet."""
        needed = [
            table.stored_offset + 1
            for table in self._tables.serving.values()
            if not table.state.closed and self._log.partition_of(table.state.table_id) == partition
        ]
        if any(offset <= 0 for offset in needed):
            return None
        return min(needed, default=self._log.end_offset(partition))

    def _retires(self, table: HostedTable, now: int, watermarks: dict[int, int]) -> bool:
        if not table.state.closed or table.parked or table.unconfirmed or table.money_backlog:
            return False
        if table.closed_seen_ms is None:
            table.closed_seen_ms = now
        kept = (now - table.closed_seen_ms) / 1000 >= self.policy.closed_kept_seconds
        partition = self._log.partition_of(table.state.table_id)
        return kept and table.last_offset < watermarks.get(partition, -1)

    async def _retire(self, table: HostedTable) -> None:
        assert self._store is not None
        table_id = table.state.table_id
        await self._store.forget(table_id, self._log.partition_of(table_id))
        async with table.lock:
            if self._tables.serving.get(table_id) is table:
                del self._tables.serving[table_id]
                ViewHub.end_streams(table)
        metrics.TABLES_RETIRED.labels(table.state.game).inc()
        log.info("closed table retired", table_id=table_id, game=table.state.game)

    def _lags(self, table: HostedTable) -> bool:
        if table.state.closed or table.parked or table.unconfirmed:
            return False
        end = self._log.end_offset(self._log.partition_of(table.state.table_id))
        return (
            table.last_offset > table.covered_offset
            or table.covered_offset < end - 1 - self.policy.lag_records
        )
