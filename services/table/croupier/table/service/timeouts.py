"""Turn clocks running out: the table's one timer, and the timeout command it submits.

The host waits for a time on its clock through `CallLater` (the event loop's timer by
default): a test gives the host its own `now_ms` and `call_later` and moves time itself,
instead of racing real milliseconds on a loaded machine.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

import structlog

from croupier.game import RuleBroken
from croupier.table.adapters import metrics
from croupier.table.ports import CallLater, Cancellable
from croupier.table.service.background import Background
from croupier.table.service.deadlines import deadline_after
from croupier.table.service.tables import HostedTable, LogUnavailable

if TYPE_CHECKING:
    from croupier.table.service.commands import CommandPath

log = structlog.get_logger("croupier.table.host")


def wall_clock_ms() -> int:
    return int(time.time() * 1000)


def loop_call_later(delay_ms: int, callback: Callable[[], None]) -> Cancellable:
    """The real clock's `CallLater`: the running event loop's timer."""
    return asyncio.get_running_loop().call_later(delay_ms / 1000, callback)


async def sleep_ms(call_later: CallLater, delay_ms: int) -> None:
    """Wait `delay_ms` on the clock that `call_later` keeps."""
    woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    timer = call_later(delay_ms, lambda: None if woken.done() else woken.set_result(None))
    try:
        await woken
    finally:
        timer.cancel()


class TurnClock:
    def __init__(
        self,
        commands: CommandPath,
        background: Background,
        now_ms: Callable[[], int],
        call_later: CallLater,
    ) -> None:
        self._commands = commands
        self._background = background
        self._now_ms = now_ms
        self.call_later = call_later

    def arm(self, table: HostedTable) -> None:
        """Set the table's one timer to its next clock expiry. A timer handle, not a task:
        almost every command moves the deadline, and a handle is cheap to drop."""
        if table.timer is not None:
            table.timer.cancel()
        table.timer = None
        expiry = None if table.state.closed else table.state.clocks.next_expiry()
        if expiry is not None:
            deadline_ms, player = expiry
            table.timer = self.call_later(
                max(0, deadline_ms - self._now_ms()),
                partial(self._background.run, lambda: self._expire_at(table, deadline_ms, player)),
            )

    async def _expire_at(self, table: HostedTable, deadline_ms: int, player: str) -> None:
        await sleep_ms(self.call_later, max(0, deadline_ms - self._now_ms()))
        # The loop's timers run on the monotonic clock, the command is stamped with the wall
        # clock; the first can wake a millisecond before the second reads the deadline, and
        # a timeout is never stamped before it (CI saw 499 ms for a 500 ms clock).
        if (early_ms := deadline_ms - self._now_ms()) > 0:
            await sleep_ms(self.call_later, early_ms + 1)
        retry = partial(
            self._background.retry_later, lambda: self._expire_at(table, deadline_ms, player)
        )
        async with table.lock:
            if table.parked:
                return  # the clock is re-armed when the table is taken back
            answer_by = deadline_after()
            try:
                await self._commands.confirm_unconfirmed(table, answer_by)
            except LogUnavailable:
                retry()
                return
            if table.state.clocks.deadline_ms(player) != deadline_ms:
                return  # the player acted meanwhile
            # A deterministic command id: the same expiry is applied once, also when a
            # rebuilt host re-arms the clock of a timeout that was already logged.
            command_id = f"timeout:{table.state.index}:{player}"
            if command_id in table.seen_commands:
                return
            try:
                await self._commands.submit_locked(
                    table, "timeout", player, {}, command_id, answer_by
                )
            except (RuleBroken, LogUnavailable) as exc:
                # Try again shortly: a clock that gave up would leave the table waiting.
                log.error("timeout not applied", table_id=table.state.table_id, error=str(exc))
                retry()
                return
            metrics.TIMEOUTS_APPLIED.labels(table.state.game).inc()
            await self._commands.after_commit(table, answer_by)
