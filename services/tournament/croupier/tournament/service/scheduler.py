"""Start tournaments at their time (rule 1) and keep running ones on the clock (levels,
rebuy windows, rules 17-18): a background task asks the director every `interval`
seconds. Tests call `Director.start_due` and `Rounds.advance_running` themselves with a clock they
step, and never run this loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from croupier.tournament.service.director import Director

__all__ = ["Scheduler"]

_log = logging.getLogger(__name__)


class Scheduler:
    def __init__(self, director: Director, interval_seconds: float) -> None:
        self._director = director
        self._interval = interval_seconds
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="tournament:scheduler")

    async def stop(self) -> None:
        if self._task is not None:
            task, self._task = self._task, None
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            try:
                await self._director.start_due()
                await self._director.rounds.advance_running()
            except Exception:  # noqa: BLE001 - the next tick retries; every step is idempotent
                _log.exception("tournament scheduler: starting or advancing tournaments failed")
            await asyncio.sleep(self._interval)
