"""The command path: check a command on the table's state, log it (with the deal it
allows), commit it, then publish, ask the wallet, wake the views and re-arm the clock.

Commands of one table are serialised by the table's lock. A failed append fences the
table: nothing else is logged for it until the same entries are appended again and
committed (`confirm_unconfirmed`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import structlog

from croupier.game import JSON, Duplicate, EvaluatesAbandonment, RuleBroken
from croupier.game.limits import echo
from croupier.table.adapters import metrics
from croupier.table.adapters.log_codec import decode, encode
from croupier.table.core.log_entry import LogEntry
from croupier.table.core.table_state import StepOutcome, TableState, step
from croupier.table.ports import CallLater, CommandLog, PartitionTaken
from croupier.table.service.background import Background
from croupier.table.service.deadlines import acquire_by, deadline_after
from croupier.table.service.money import MoneySender
from croupier.table.service.outgoing import Outgoing
from croupier.table.service.requests import MoneyRequest
from croupier.table.service.snapshots import Snapshots
from croupier.table.service.tables import (
    HostedTable,
    LogUnavailable,
    Tables,
    TableVoided,
)
from croupier.table.service.timeouts import TurnClock
from croupier.table.service.views import ViewHub

log = structlog.get_logger("croupier.table.host")


def _require_same_command(table: HostedTable, command_id: str, body: JSON) -> None:
    """A repeated command id must repeat its command: one that carries something else
    is refused (ALREADY_EXISTS), naming what differs, instead of a silent OK."""
    index = table.seen_commands[command_id]
    if index < table.log_start:
        return  # logged before the table's snapshot: its body is no longer held
    logged = decode(table.log[index - table.log_start]).body
    if logged == body:
        return
    if isinstance(logged.get("action"), dict) and isinstance(body.get("action"), dict):
        logged, body = logged["action"], body["action"]
    differs = sorted(k for k in logged.keys() | body.keys() if logged.get(k) != body.get(k))
    raise Duplicate(
        f"command_id {echo(command_id.split(':', 2)[-1])} was used for another command "
        f"(differs in {echo(', '.join(differs))}): use a new command_id for a new command",
    )


async def _evaluation(table: HostedTable, player: str) -> JSON:
    """The engine's outside evaluation of `player` leaving now, if it needs one."""
    if not isinstance(table.engine, EvaluatesAbandonment):
        return {}
    evaluation = await table.engine.evaluate_abandonment(table.state.engine_state, player)
    return {} if evaluation is None else {"evaluation": evaluation}


class CommandPath:
    def __init__(
        self,
        *,
        tables: Tables,
        command_log: CommandLog,
        money: MoneySender,
        outgoing: Outgoing,
        views: ViewHub,
        background: Background,
        now_ms: Callable[[], int],
        call_later: CallLater,
        seeds: Callable[[], bytes],
        snapshots: Snapshots,
    ) -> None:
        self._tables = tables
        self.snapshots = snapshots
        self._log = command_log
        self._money = money
        self._outgoing = outgoing
        self._views = views
        self._background = background
        self._now_ms = now_ms
        self._seeds = seeds
        self.clock = TurnClock(self, background, now_ms, call_later)

    async def submit(
        self,
        table: HostedTable,
        kind: str,
        player: str,
        body: JSON,
        *,
        command_id: str,
        evaluate: bool = False,
        within: float | None = None,
    ) -> bool:
        """Check, log, commit, publish. False when `command_id` was applied before.

        `evaluate`: ask the engine's outside evaluator first (under the table's lock, so
        the evaluated position is the one the command applies to) and log its answer.
        Waiting for the table's lock and for the log ends by the deadline (`within`).
        """
        accepted = time.perf_counter()
        deadline = deadline_after(within)
        await acquire_by(table.lock, deadline)
        try:
            if table.parked:
                raise self._tables.elsewhere(table.state.table_id)
            await self.confirm_unconfirmed(table, deadline)
            if command_id in table.seen_commands:
                if not evaluate:  # an evaluated command's logged body has the evaluation too
                    _require_same_command(table, command_id, body)
                return False
            if evaluate:
                body = {**body, **await _evaluation(table, player)}
            await self.submit_locked(table, kind, player, body, command_id, deadline)
            await self.after_commit(table, deadline)
        finally:
            table.lock.release()
        metrics.ACTION_LATENCY.labels(table.state.game, "answered").observe(
            time.perf_counter() - accepted
        )
        return True

    def entry(
        self, table: HostedTable, index: int, kind: str, player: str, body: JSON, command_id: str
    ) -> LogEntry:
        return LogEntry(
            table_id=table.state.table_id,
            index=index,
            command_id=command_id,
            kind=kind,
            player=player,
            body=body,
            at_ms=self._now_ms(),
            engine=table.engine.name,
            engine_version=table.engine.version,
        )

    async def submit_locked(
        self,
        table: HostedTable,
        kind: str,
        player: str,
        body: JSON,
        command_id: str,
        deadline: float,
    ) -> None:
        """Check the command, then log it together with the deal it allows, if any.

        A command that ends a hand is logged in the same append as the next hand's deal:
        one round trip to the log instead of two before the caller is answered.
        """
        accepted = time.perf_counter()
        await self.confirm_unconfirmed(table, deadline)
        entry = self.entry(table, table.state.index + 1, kind, player, body, command_id)
        outcome = step(table.engine, table.state, entry)  # refused: nothing logged
        await self._money.money_in(table, entry, outcome)
        batch = [(entry, outcome)]
        deal = self._deal_after(table, outcome.state)
        if deal is not None:
            batch.append(deal)
        await self._log_and_commit(table, batch, deadline)
        metrics.ACTION_LATENCY.labels(table.state.game, "logged").observe(
            time.perf_counter() - accepted
        )

    async def _log_and_commit(
        self, table: HostedTable, batch: list[tuple[LogEntry, StepOutcome]], deadline: float
    ) -> None:
        await self.append(table, [entry for entry, _ in batch], deadline)
        money_requests: list[MoneyRequest] = []
        for entry, outcome in batch:
            game = table.state.game
            if outcome.state.closed and not table.state.closed:
                metrics.TABLES_OPEN.labels(game).dec()
            # Players at open tables: a close lets them all go.
            seated_before = 0 if table.state.closed else len(table.state.seated)
            seated_after = 0 if outcome.state.closed else len(outcome.state.seated)
            metrics.PLAYERS_SEATED.labels(game).inc(seated_after - seated_before)
            money_requests += self.commit(table, entry, outcome)
            if outcome.events:
                self._outgoing.publish(table, entry, outcome)
        hand_ended = any(outcome.settlement is not None for _, outcome in batch)
        self.snapshots.after_commit(table, hand_ended)
        if money_requests:
            await self._money.ask_wallet(table, money_requests, deadline)

    def _deal_after(
        self, table: HostedTable, state: TableState
    ) -> tuple[LogEntry, StepOutcome] | None:
        """The next hand's deal, when `state` allows one to start.

        A closing table deals only while its settlement is still to come: a Joker game's
        result (what settles, and so closes, the table) follows its last deal, so the game
        in play is dealt to its end; a poker hand or a backgammon game settles as it ends,
        and the table is closed before another could be dealt."""
        if state.closed or (state.closing and not state.hand_open):
            return None
        if not table.engine.can_start_hand(state.engine_state):
            return None
        entry = self.entry(
            table,
            state.index + 1,
            "start_hand",
            "",
            {"seed": self._seeds().hex()},
            f"start_hand:{state.hand_number + 1}",
        )
        try:
            return entry, step(table.engine, state, entry)
        except RuleBroken as exc:
            log.error("next hand not dealt", table_id=state.table_id, error=exc.message)
            return None

    async def append(self, table: HostedTable, entries: list[LogEntry], deadline: float) -> None:
        """Log `entries`; when the log fails, the table is fenced until they are confirmed.

        A failed append is ambiguous: the log may hold the entries although it did not
        acknowledge them, and a replay would then apply them. So nothing else is logged
        for this table until the same entries (same ids, same indexes: a replay keeps one
        copy) are appended again and committed (`confirm_unconfirmed`). An append not
        acknowledged by `deadline` fails so: while the broker is away, the producer still
        holds the records (up to its delivery timeout) and each retry queues them again;
        when it is back they may be stored more than once, and a replay keeps one copy.
        """
        if table.state.table_id in self._tables.voided:
            raise TableVoided("this table was voided and refunded")
        try:
            async with asyncio.timeout_at(deadline):
                table.last_offset = await self._log.append(entries)
        except PartitionTaken as exc:
            # Another replica rebuilt the table: the entries are fenced (no replay applies
            # them), so nothing is to confirm; the log parks the partition's tables.
            log.warning("append fenced", table_id=table.state.table_id, error=str(exc))
            raise self._tables.elsewhere(table.state.table_id) from exc
        except BaseException as exc:
            # Also when the caller went away (a cancelled call, a deadline): the entries
            # may be stored all the same.
            table.unconfirmed = entries
            if not self._background.stopping:  # lift the fence as soon as the log answers
                self._background.retry_later(lambda: self.retry_after_commit(table))
            if not isinstance(exc, Exception):
                raise
            log.error("command log append failed", table_id=table.state.table_id, error=str(exc))
            raise LogUnavailable(
                "the table's command log did not confirm the write; retry with the same command id"
            ) from exc

    async def confirm_unconfirmed(self, table: HostedTable, deadline: float) -> None:
        """Lift the fence of an ambiguous append: log its entries again, then commit them."""
        entries, table.unconfirmed = table.unconfirmed, []
        if not entries:
            return
        batch = [(entry, step(table.engine, table.state, entry)) for entry in entries[:1]]
        for entry in entries[1:]:  # checked before, on the same states
            batch.append((entry, step(table.engine, batch[-1][1].state, entry)))
        await self._log_and_commit(table, batch, deadline)  # fails again: fenced again
        log.info("ambiguous append confirmed", table_id=table.state.table_id, entries=len(entries))
        self._views.notify(table)
        self.clock.arm(table)

    def commit(
        self, table: HostedTable, entry: LogEntry, outcome: StepOutcome
    ) -> list[MoneyRequest]:
        """Make the entry's outcome the table's state; returns what it asks of the wallet."""
        table.state = outcome.state
        table.log.append(encode(entry))
        if entry.kind == "seat":
            table.seats_taken[entry.player] = table.seats_taken.get(entry.player, 0) + 1
        table.seen_commands[entry.command_id] = entry.index
        money_requests = self._money.requests(table, entry, outcome)
        if money_requests:
            table.last_money_requests = money_requests
        return money_requests

    async def after_commit(self, table: HostedTable, deadline: float | None = None) -> None:
        """Deal the next hand if one can still start, wake the views, re-arm the clock.

        A command's own deal went out with it (`submit_locked`); this deals after a
        rebuild, when that deal was refused, or once a fence is lifted. It runs after a
        commit, so a deal the log refused does not fail the caller: it is tried again
        shortly (under the table's lock, like any command).
        """
        state = table.state
        deadline = deadline_after() if deadline is None else deadline
        try:
            await self.confirm_unconfirmed(table, deadline)
            deal = self._deal_after(table, table.state)
            if deal is not None:
                await self._log_and_commit(table, [deal], deadline)
        except (LogUnavailable, RuleBroken) as exc:
            log.error("next hand not dealt; retrying", table_id=state.table_id, error=str(exc))
            self._background.retry_later(lambda: self.retry_after_commit(table))
        finally:
            self._views.notify(table)
            self.clock.arm(table)

    async def retry_after_commit(self, table: HostedTable) -> None:
        async with table.lock:
            if not table.parked:
                await self.after_commit(table)
