"""Seated players' presence: a disconnection opens a reconnection window; a player not
back when it ends is unseated the way the game says leaving goes."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from functools import partial

import structlog

from croupier.game import RuleBroken
from croupier.table.ports import CallLater
from croupier.table.service.background import Background
from croupier.table.service.commands import CommandPath
from croupier.table.service.tables import (
    HostedTable,
    LogUnavailable,
    Tables,
    TableVoided,
    ViewSnapshot,
    require_seated,
)
from croupier.table.service.timeouts import sleep_ms
from croupier.table.service.views import ViewHub

log = structlog.get_logger("croupier.table.host")

ABANDON_ATTEMPTS = 3
ABANDON_RETRY_SECONDS = 5.0


class Presence:
    def __init__(
        self,
        *,
        tables: Tables,
        commands: CommandPath,
        views: ViewHub,
        background: Background,
        now_ms: Callable[[], int],
        call_later: CallLater,
    ) -> None:
        self._tables = tables
        self._commands = commands
        self._views = views
        self._background = background
        self._now_ms = now_ms
        self._call_later = call_later

    async def disconnect(self, table_id: str, player: str, within: float | None) -> None:
        """The seated player's session ended (his own call: with a gateway, the gateway's
        for the authenticated player whose connection dropped). The seat is kept for the
        reconnection window, the clock running meanwhile; then the game decides what
        leaving means (the engine's `UnseatPlayer`: a fold and sit-out, a forfeit, or a
        refusal when the game cannot lose a player, whose turns are then played by the
        clock). A second call keeps the first window. The disconnection is logged: a
        table rebuilt by another replica, or after a crash, resumes the window."""
        table = self._tables.get(table_id)
        require_seated(table, player)
        if player in table.disconnected_at_ms or table.state.closed:
            return  # the first window runs on; a closed table keeps no seat for anybody
        await self._commands.submit(
            table, "disconnect", player, {}, command_id=f"disconnect:{uuid.uuid4()}", within=within
        )
        since = table.disconnected_at_ms.get(player)
        if since is not None:
            window = table.state.clocks.settings.reconnect_ms
            self._background.run(lambda: self._abandon_after(table, player, since, window))

    def resume_windows(self, table: HostedTable) -> None:
        """A table taken back: its reconnection windows run on from where they were."""
        window = table.state.clocks.settings.reconnect_ms
        for player, since in list(table.disconnected_at_ms.items()):
            left = max(0, since + window - self._now_ms())
            self._background.run(partial(self._abandon_after, table, player, since, left))

    async def _abandon_after(
        self, table: HostedTable, player: str, since: int, window: int
    ) -> None:
        await sleep_ms(self._call_later, window)
        for attempt in range(ABANDON_ATTEMPTS):
            if table.disconnected_at_ms.get(player) != since or player not in table.state.seated:
                return  # back in time, or already gone
            if table.parked:
                return  # the next owner keeps its own reconnection window
            try:
                await self._commands.submit(
                    table,
                    "unseat",
                    player,
                    {},
                    command_id=f"abandon:{player}:{since}",
                    evaluate=True,
                )
            except TableVoided:
                return
            except (RuleBroken, LogUnavailable) as exc:
                # The game may refuse for good (a Joker game cannot lose a player) or for
                # now (the evaluator or the log is down): try again a few times.
                log.info(
                    "abandoned seat kept",
                    table_id=table.state.table_id,
                    attempt=attempt + 1,
                    reason=str(exc),
                )
                await asyncio.sleep(ABANDON_RETRY_SECONDS * (attempt + 1))
                continue
            return

    async def reconnect(self, table_id: str, player: str, within: float | None) -> ViewSnapshot:
        """The player is back (his own call): the reconnection window stops (logged)."""
        table = self._tables.get(table_id)
        require_seated(table, player)
        if player in table.disconnected_at_ms:
            command_id = f"reconnect:{uuid.uuid4()}"
            await self._commands.submit(
                table, "reconnect", player, {}, command_id=command_id, within=within
            )
        return self._views.snapshot(table, player)

    def is_disconnected(self, table_id: str, player: str) -> bool:
        return player in self._tables.get(table_id).disconnected_at_ms
