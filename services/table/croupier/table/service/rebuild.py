"""Rebuilding the tables of the partitions a replica is given: from each table's latest
snapshot and the log's tail, or from the whole log when a snapshot cannot be used.

1. Every snapshot of the partitions is read. One that cannot be decoded, or that another
   engine version wrote, sends its table to the full replay.
2. The log is read from the oldest offset the open tables' snapshots hold (with none
   open, from past every snapshot and the partition's watermark, before which the
   retired closed tables lie); each table's records up to its snapshot's offset are
   skipped unread. A table's tail is applied to
   its snapshot; a tail that does not follow the snapshot (a gap), or a table with no
   snapshot whose opening is older than the offset read from, goes to the full replay.
3. The full replay reads the partitions from the beginning for those tables only. A
   table it cannot rebuild either (its history expired or was lost, an unreadable entry)
   is voided and its crash refund requested: a table the replica knew (from a snapshot,
   or served before the rebalance) is never dropped.

Reading and decoding the snapshots (step 1) is a `bulk_load` (`croupier.kit.collector`):
a process that owns its garbage collector pauses it there and freezes the tables built,
which are most of the rebuild's long-lived objects. Replaying the log is not: the engines'
steps leave short-lived reference cycles (backgammon's move search, five objects an entry
on average), which a paused collector would let pile up for a whole full replay.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import structlog

from croupier.game import GameRules, RuleBroken
from croupier.kit.collector import BulkLoad, no_bulk_load
from croupier.kit.tasks import Pacer
from croupier.table.adapters import metrics
from croupier.table.adapters.log_codec import encode
from croupier.table.adapters.snapshot_codec import (
    SnapshotHeader,
    UnreadableSnapshot,
    decode,
    read_header,
)
from croupier.table.core.history import initial_state
from croupier.table.core.log_entry import LogEntry, ReplayedTable
from croupier.table.core.table_state import step
from croupier.table.ports import CommandLog, SnapshotStore
from croupier.table.service.commands import CommandPath
from croupier.table.service.money import MoneySender
from croupier.table.service.requests import MoneyRequest
from croupier.table.service.tables import HostedTable, Tables, TableVoided

log = structlog.get_logger("croupier.table.host")

# `covered` for the tables a pass must not read: past any offset.
_SKIP_ALL = 2**62
# Decoding and replaying never wait on anything: a rebuild lets the event loop run (the
# consumer group's heartbeat, the gRPC server) after about this much work (a snapshot
# decoded or a table served counts 1, a replayed table its entries; each well under a
# millisecond), or a long rebuild would stall both for its whole length.
_YIELD_AFTER = 200


class Rebuilder:
    def __init__(
        self,
        *,
        tables: Tables,
        command_log: CommandLog,
        snapshot_store: SnapshotStore | None,
        engine_for: Callable[[str], GameRules[Any]],
        commands: CommandPath,
        money: MoneySender,
        bulk_load: BulkLoad = no_bulk_load,
    ) -> None:
        self._tables = tables
        self._bulk_load = bulk_load
        self._log = command_log
        self._store = snapshot_store
        self._engine_for = engine_for
        self._commands = commands
        self._money = money
        self._pace = Pacer(_YIELD_AFTER).step

    async def rebuild(
        self, partitions: frozenset[int], known: dict[str, str] | None = None
    ) -> list[MoneyRequest]:
        """Serve the tables of `partitions`; returns what they ask of the wallet again.

        `known`: open tables (id → game) this replica served in these partitions before;
        one that neither a snapshot nor the log gives back (a broker that lost its data)
        is voided and refunded."""
        asked_again: list[MoneyRequest] = []
        started = time.perf_counter()
        with self._bulk_load():
            restored, full_replay, watermarks = await self._restore(partitions)
        from_snapshots = len(restored)
        restored_at = time.perf_counter()
        since = self._since(partitions, restored.values(), watermarks)
        covered = {table_id: table.covered_offset for table_id, table in restored.items()}
        async for replayed in self._log.replay(partitions, since, covered):
            await self._pace(len(replayed.entries) or 1)
            table_id = replayed.table_id
            if table_id in full_replay:
                continue
            table = restored.pop(table_id, None)
            if table is not None:
                if not self._apply_tail(table, replayed):
                    full_replay[table_id] = table.state.game
                    continue
                await self._serve(table, asked_again)
            elif since.get(self._log.partition_of(table_id), 0) and not _opens(replayed):
                full_replay[table_id] = ""  # opened before `since`, its snapshot missing
            else:
                await self._rebuild_from_log(replayed, asked_again)
        for table in restored.values():  # no record after their snapshot
            await self._pace()
            await self._serve(table, asked_again)
        tails_at = time.perf_counter()
        if full_replay:
            await self._replay_fully(partitions, full_replay, asked_again)
        # Where a start-up's time went: an SRE's first question when one is slow.
        log.info(
            "partitions rebuilt",
            partitions=sorted(partitions),
            from_snapshots=from_snapshots,
            replayed_fully=len(full_replay),
            snapshots_seconds=round(restored_at - started, 3),
            tails_seconds=round(tails_at - restored_at, 3),
            full_replay_seconds=round(time.perf_counter() - tails_at, 3),
        )
        for table_id, game in (known or {}).items():
            if table_id not in self._tables.serving and table_id not in self._tables.voided:
                await self._void(table_id, game, "its command log is gone (lost by the broker)")
        return asked_again

    async def _restore(
        self, partitions: frozenset[int]
    ) -> tuple[dict[str, HostedTable], dict[str, str], dict[int, int]]:
        """The tables the snapshots give, those (with their game) to replay fully, and the
        partitions' watermarks."""
        restored: dict[str, HostedTable] = {}
        full_replay: dict[str, str] = {}
        if self._store is None:
            return restored, full_replay, {}
        stored = await self._store.load(partitions)
        for table_id, data in stored.tables.items():
            await self._pace()
            header: SnapshotHeader | None = None
            try:
                header = read_header(data)
                table = self._table_of(data, header)
            except (UnreadableSnapshot, RuleBroken) as exc:
                reason = exc.message if isinstance(exc, RuleBroken) else str(exc)
                log.warning("snapshot not used", table_id=table_id, reason=reason)
                metrics.SNAPSHOT_FALLBACKS.labels(type(exc).__name__).inc()
                full_replay[table_id] = header.game if header is not None else ""
                continue
            restored[table_id] = table
        return restored, full_replay, stored.watermarks

    def _table_of(self, data: bytes, header: SnapshotHeader) -> HostedTable:
        engine = self._engine_for(header.engine)
        if header.engine_version != engine.version:
            raise UnreadableSnapshot(
                f"written by engine version {header.engine_version}, "
                f"this host runs {engine.version}"
            )
        snapshot = decode(data)
        return HostedTable(
            engine,
            snapshot.state,
            [],
            seen_commands=snapshot.seen_commands,
            seats_taken=snapshot.seats_taken,
            last_money_requests=snapshot.last_money_requests,
            log_start=snapshot.state.index + 1,
            last_offset=header.offset,
            covered_offset=header.offset,
            stored_offset=header.offset,
            snapshot_index=header.index,
        )

    def _since(
        self, partitions: frozenset[int], tables: Any, watermarks: dict[int, int]
    ) -> dict[int, int]:
        """Per partition, the oldest offset an open restored table still needs; when all
        are closed, past every snapshot and the watermark (retired tables lie wholly
        before it); the beginning with neither."""
        needed: dict[int, list[int]] = defaultdict(list)
        closed: dict[int, list[int]] = defaultdict(list)
        for table in tables:
            partition = self._log.partition_of(table.state.table_id)
            (closed if table.state.closed else needed)[partition].append(table.covered_offset + 1)
        return {
            p: min(needed[p]) if needed[p] else max(*closed[p], watermarks.get(p, 0), 0)
            for p in partitions
        }

    def _apply_tail(self, table: HostedTable, replayed: ReplayedTable) -> bool:
        """Apply the entries after the snapshot; False when they do not follow it."""
        if replayed.unreadable is not None:
            return False
        entries = [e for e in replayed.entries if e.index > table.state.index]
        if entries and entries[0].index != table.state.index + 1:
            return False
        try:
            for entry in entries:
                self._commands.commit(table, entry, step(table.engine, table.state, entry))
        except (RuleBroken, KeyError, ValueError, TypeError) as exc:
            log.warning(
                "tail does not apply to the snapshot", table_id=table.state.table_id, error=str(exc)
            )
            return False
        table.last_offset = max(table.last_offset, replayed.last_offset)
        return True

    async def _replay_fully(
        self, partitions: frozenset[int], tables: dict[str, str], asked_again: list[MoneyRequest]
    ) -> None:
        skip = {table_id: _SKIP_ALL for table_id in self._tables.serving}
        found: set[str] = set()
        async for replayed in self._log.replay(partitions, None, skip):
            await self._pace(len(replayed.entries) or 1)
            if replayed.table_id in tables:
                found.add(replayed.table_id)
                await self._rebuild_from_log(replayed, asked_again)
        for table_id in tables.keys() - found:
            await self._void(
                table_id, tables[table_id], "its command log is gone (expired or lost)"
            )

    async def _rebuild_from_log(
        self, replayed: ReplayedTable, asked_again: list[MoneyRequest]
    ) -> None:
        table_id = replayed.table_id
        game = replayed.entries[0].body.get("game", "") if replayed.entries else ""
        try:
            if replayed.unreadable is not None:
                raise TableVoided(f"log entry unreadable: {replayed.unreadable}")
            table = self._replay(replayed.entries)
        except (RuleBroken, KeyError, ValueError, TypeError) as exc:
            reason = exc.message if isinstance(exc, RuleBroken) else str(exc)
            await self._void(table_id, str(game), reason)
            return
        table.last_offset = replayed.last_offset
        await self._serve(table, asked_again)

    async def _serve(self, table: HostedTable, asked_again: list[MoneyRequest]) -> None:
        self._tables.serving[table.state.table_id] = table
        metrics.REPLAYS.labels(table.state.game).inc()
        if not table.state.closed:
            metrics.TABLES_OPEN.labels(table.state.game).inc()
            metrics.PLAYERS_SEATED.labels(table.state.game).inc(len(table.state.seated))
        # The host may have died between logging a hand's end (or a player's leaving) and
        # asking the wallet: ask again (the wallet applies each idempotency key once);
        # `Ownership.partitions_assigned` sends what every rebuilt table asks in one go.
        asked_again += table.last_money_requests
        async with table.lock:
            if table.snapshot_index < table.state.index:
                # The log was read to its end: the table holds the partition up to there.
                end = self._log.end_offset(self._log.partition_of(table.state.table_id))
                self._commands.snapshots.take(table, max(end - 1, table.last_offset))
            await self._commands.after_commit(table)

    def _replay(self, entries: list[LogEntry]) -> HostedTable:
        if not entries or entries[0].kind != "open":
            raise TableVoided("the log does not start with the table's opening")
        opening = entries[0]
        engine = self._engine_for(opening.engine)
        if opening.engine_version != engine.version:
            raise TableVoided(
                f"engine version mismatch: log {opening.engine_version}, host {engine.version}"
            )
        table = HostedTable(engine, initial_state(engine, opening), [encode(opening)])
        table.seen_commands[opening.command_id] = opening.index
        for entry in entries[1:]:
            outcome = step(engine, table.state, entry)
            self._commands.commit(table, entry, outcome)
        return table

    async def _void(self, table_id: str, game: str, reason: str) -> None:
        log.error("table voided", table_id=table_id, game=game, reason=reason)
        self._tables.voided[table_id] = reason
        metrics.CRASH_REFUNDS_REQUESTED.labels(game or "unknown").inc()
        await self._money.refund_crashed_table(table_id, game, reason)


def _opens(replayed: ReplayedTable) -> bool:
    return bool(replayed.entries) and replayed.entries[0].kind == "open"
