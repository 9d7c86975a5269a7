"""Background work a service runs beside its gRPC server: a step repeated on an interval
(`Periodic`), an attempt repeated until it succeeds (`keep_trying`), stopping either
(`cancel`), and a long stretch of work that lets the others run now and then (`Pacer`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

__all__ = ["STOP_SECONDS", "Pacer", "Periodic", "cancel", "keep_trying", "stop_within"]

_T = TypeVar("_T")

#: Pause between two failed attempts of `keep_trying`.
RETRY_SECONDS = 1.0
#: The longest `stop_within` waits for one part to stop.
STOP_SECONDS = 15.0


async def cancel(task: asyncio.Task[Any] | None) -> None:
    """Cancel `task` (if any) and wait until it has stopped."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def stop_within(
    stop: Awaitable[Any], what: str, log: logging.Logger, seconds: float = STOP_SECONDS
) -> None:
    """Await `stop` (a part stopping) for at most `seconds`: a Kafka client stopped while
    its group join hangs on a loaded broker has been seen never to return, and a service's
    shutdown must end (the part is abandoned, logged as an error)."""
    # Not `wait_for`: after its timeout it waits for the cancelled part to end, which a
    # part that swallows the cancellation never does.
    task = asyncio.ensure_future(stop)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if task in done:
        task.result()  # its failure, if any, is the caller's
        return
    task.cancel()
    log.error("%s did not stop within %.0f s: abandoned", what, seconds)


async def keep_trying(
    attempt: Callable[[], Awaitable[_T]],
    *,
    failure: str,
    log: logging.Logger,
    pause_seconds: float = RETRY_SECONDS,
) -> _T:
    """Await `attempt()` until it returns, pausing `pause_seconds` after each failure, which
    is logged as `failure` with the attempt's number. Cancelling stops the retries."""
    number = 0
    while True:
        number += 1
        try:
            return await attempt()
        except Exception as error:  # noqa: BLE001 - any failure is retried
            log.warning(
                "%s (attempt %d), retrying in %.1f s: %s", failure, number, pause_seconds, error
            )
            await asyncio.sleep(pause_seconds)


class Pacer:
    """Lets the event loop run once `every` units of work were done since it last ran.

    A loop over thousands of tables that never waits (a rebuild decoding snapshots, a
    sweep snapshotting every table) would otherwise hold the loop for its whole length:
    every call to the server waits behind it, and a consumer group's heartbeat too. The
    caller weighs its steps (a step well under a millisecond counts 1). With
    `pause_seconds`, it also waits that long each time: a rate (`every` steps per pause)
    for work that must not come in one burst."""

    def __init__(self, every: int, pause_seconds: float = 0.0) -> None:
        self._every = every
        self._pause = pause_seconds
        self._done = 0

    async def step(self, work: int = 1) -> None:
        self._done += work
        if self._done >= self._every:
            self._done = 0
            await asyncio.sleep(self._pause)


class Periodic:
    """Await `step()` every `interval_seconds` in a background task, from `start` until
    `stop`. A failed step is logged as `failure` and the next tick tries again (steps are
    idempotent); tests call the step themselves with a clock they step."""

    def __init__(
        self,
        step: Callable[[], Awaitable[None]],
        interval_seconds: float,
        *,
        name: str,
        failure: str,
        log: logging.Logger,
    ) -> None:
        self._step = step
        self._interval = interval_seconds
        self._name = name
        self._failure = failure
        self._log = log
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=self._name)

    async def stop(self) -> None:
        """Cancel the loop, waiting for it to end. Safe to call twice."""
        task, self._task = self._task, None
        await cancel(task)

    async def _run(self) -> None:
        while True:
            try:
                await self._step()
            except Exception:  # noqa: BLE001 - the next tick retries; every step is idempotent
                self._log.exception("%s", self._failure)
            await asyncio.sleep(self._interval)
