"""The lobby's clock work: every `interval` seconds match the waiting tickets (and place
the matches), and release seat holds whose time ran out. Tests call
`Matchmaking.process` and `Tables.expire_holds` themselves with a clock they step, and
never run this loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from croupier.lobby.service.matchmaking import Matchmaking
from croupier.lobby.service.tables import Tables

__all__ = ["Ticker"]

_log = logging.getLogger(__name__)


class Ticker:
    def __init__(self, matchmaking: Matchmaking, tables: Tables, interval_seconds: float) -> None:
        self._matchmaking = matchmaking
        self._tables = tables
        self._interval = interval_seconds
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="lobby:ticker")

    async def stop(self) -> None:
        if self._task is not None:
            task, self._task = self._task, None
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            try:
                await self._matchmaking.process()
                await self._tables.expire_holds()
            except Exception:  # noqa: BLE001 - the next tick retries; every step is idempotent
                _log.exception("lobby ticker: matching or releasing holds failed")
            await asyncio.sleep(self._interval)
