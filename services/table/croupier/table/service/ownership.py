"""The command log's partitions, and so the tables, this replica serves: parked while a
rebalance runs, taken back as they were, or rebuilt from their snapshots and the log
(`service.rebuild`)."""

from __future__ import annotations

import time

from croupier.table.adapters import metrics
from croupier.table.ports import CommandLog
from croupier.table.service.background import Background
from croupier.table.service.commands import CommandPath
from croupier.table.service.money import MoneySender
from croupier.table.service.presence import Presence
from croupier.table.service.rebuild import Rebuilder
from croupier.table.service.tables import HostedTable, Tables
from croupier.table.service.views import ViewHub


class Ownership:
    """What the command log calls as partitions come and go (`ports.PartitionOwner`)."""

    def __init__(
        self,
        *,
        tables: Tables,
        command_log: CommandLog,
        rebuilder: Rebuilder,
        commands: CommandPath,
        presence: Presence,
        views: ViewHub,
        money: MoneySender,
        background: Background,
    ) -> None:
        self._tables = tables
        self._log = command_log
        self._rebuilder = rebuilder
        self._commands = commands
        self._presence = presence
        self._views = views
        self._money = money
        self._background = background

    async def partitions_revoked(self, partitions: frozenset[int]) -> None:
        """A rebalance starts: stop serving these partitions' tables (after the command
        in flight, if any) and park them until the new assignment is known."""
        if self._background.stopping:
            return
        tables = self._tables
        async with tables.opening:  # a table being opened is served or refused
            tables.owned -= partitions
            tables.parked_partitions |= partitions
            for table_id, table in list(tables.serving.items()):
                if self._log.partition_of(table_id) in partitions:
                    async with table.lock:
                        del tables.serving[table_id]
                        table.parked = True
                        if table.timer is not None:
                            table.timer.cancel()
                            table.timer = None
                        tables.parked[table_id] = table

    async def partitions_assigned(
        self, partitions: frozenset[int], unchanged: frozenset[int]
    ) -> None:
        """Serve `partitions`: parked tables of unchanged partitions are taken back as they
        were; every other partition is rebuilt from the log. Parked tables of partitions
        that went elsewhere are let go (their streams end: clients reconnect)."""
        started = time.perf_counter()
        tables = self._tables
        kept = unchanged & partitions & tables.parked_partitions
        tables.parked_partitions.clear()
        rebuilt = partitions - kept - tables.owned
        known: dict[str, str] = {}  # open tables of rebuilt partitions: never dropped
        for table_id, table in list(tables.parked.items()):
            del tables.parked[table_id]
            partition = self._log.partition_of(table_id)
            if partition in kept:
                table.parked = False
                tables.serving[table_id] = table
                self._resume(table)
            else:
                self._release(table)
                if partition in rebuilt and not table.state.closed:
                    known[table_id] = table.state.game
        if rebuilt:
            asked_again = await self._rebuilder.rebuild(rebuilt, known)
            if asked_again:
                await self._money.ask_again(f"partitions {sorted(rebuilt)}", asked_again)
            for table_id, table in list(tables.serving.items()):
                if self._log.partition_of(table_id) in rebuilt:
                    # Disconnections are in the log: their windows run on where they were.
                    self._presence.resume_windows(table)
            metrics.REPLAY_SECONDS.observe(time.perf_counter() - started)
        tables.owned |= partitions

    def _resume(self, table: HostedTable) -> None:
        """A table taken back: what waited while it was parked (a deal, a fence to lift,
        a clock, reconnection windows) starts again."""
        self._background.run(lambda: self._commands.retry_after_commit(table))
        self._presence.resume_windows(table)

    def _release(self, table: HostedTable) -> None:
        game = table.state.game
        if not table.state.closed:
            metrics.TABLES_OPEN.labels(game).dec()
            metrics.PLAYERS_SEATED.labels(game).dec(len(table.state.seated))
        self._views.end_streams(table)
