"""The command log's partitions, and so the tables, this replica serves: parked while a
rebalance runs, taken back as they were, or rebuilt from the log; a table that cannot be
rebuilt is voided and a crash refund is requested from the wallet."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import structlog

from croupier.game import GameRules, RuleBroken
from croupier.table.adapters import metrics
from croupier.table.adapters.log_codec import encode
from croupier.table.core.history import initial_state
from croupier.table.core.log_entry import LogEntry, ReplayedTable
from croupier.table.core.table_state import step
from croupier.table.ports import CommandLog
from croupier.table.service.background import Background
from croupier.table.service.commands import CommandPath
from croupier.table.service.money import MoneySender
from croupier.table.service.presence import Presence
from croupier.table.service.requests import MoneyRequest
from croupier.table.service.tables import HostedTable, Tables, TableVoided
from croupier.table.service.views import ViewHub

log = structlog.get_logger("croupier.table.host")


class Ownership:
    """What the command log calls as partitions come and go (`ports.PartitionOwner`)."""

    def __init__(
        self,
        *,
        tables: Tables,
        command_log: CommandLog,
        engine_for: Callable[[str], GameRules[Any]],
        commands: CommandPath,
        presence: Presence,
        views: ViewHub,
        money: MoneySender,
        background: Background,
    ) -> None:
        self._tables = tables
        self._log = command_log
        self._engine_for = engine_for
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
        for table_id, table in list(tables.parked.items()):
            del tables.parked[table_id]
            if self._log.partition_of(table_id) in kept:
                table.parked = False
                tables.serving[table_id] = table
                self._resume(table)
            else:
                self._release(table)
        rebuilt = partitions - kept - tables.owned
        if rebuilt:
            asked_again: list[MoneyRequest] = []
            async for replayed in self._log.replay(rebuilt):
                await self._rebuild_table(replayed, asked_again)
            if asked_again:
                await self._money.ask_again(f"partitions {sorted(rebuilt)}", asked_again)
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

    async def _rebuild_table(
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
        self._tables.serving[table_id] = table
        metrics.REPLAYS.labels(table.state.game).inc()
        if not table.state.closed:
            metrics.TABLES_OPEN.labels(table.state.game).inc()
            metrics.PLAYERS_SEATED.labels(table.state.game).inc(len(table.state.seated))
        # The host may have died between logging a hand's end (or a player's leaving) and
        # asking the wallet: ask again (the wallet applies each idempotency key once);
        # `partitions_assigned` sends what every rebuilt table asks in one go.
        asked_again += table.last_money_requests
        async with table.lock:
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
