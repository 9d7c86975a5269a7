"""The host's background work: tasks it starts and forgets (cancelled at stop), and the
pause before a failed step is tried again."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import structlog

log = structlog.get_logger("croupier.table.host")

RETRY_SECONDS = 1.0


async def pause_before_retry() -> None:
    await asyncio.sleep(RETRY_SECONDS)


class Background:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()
        self.stopping = False  # the host is stopping: nothing new is started

    def run(self, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
        task = asyncio.create_task(work())
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def retry_later(self, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run `work()` in the background after `RETRY_SECONDS` (cancelled at stop)."""

        async def run() -> None:
            await pause_before_retry()
            await work()

        self.run(run)

    def cancel(self) -> None:
        for task in self._tasks:
            task.cancel()

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error("table host background work failed", error=repr(error))
