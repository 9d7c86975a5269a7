"""The kit's background work: a periodic step that outlives its failures, retries until
an attempt succeeds, stopping either, and a pacer that lets the loop run now and then."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

import pytest

from croupier.kit.tasks import Pacer, Periodic, cancel, keep_trying, stop_within

_log = logging.getLogger("tests.kit.tasks")


async def until(condition: Callable[[], bool], within: float = 2.0) -> None:
    async with asyncio.timeout(within):
        while not condition():  # noqa: ASYNC110 - polling a plain condition is the point
            await asyncio.sleep(0.001)


async def test_a_periodic_step_runs_again_after_it_failed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    calls: list[int] = []

    async def step() -> None:
        calls.append(len(calls))
        if len(calls) == 1:
            raise RuntimeError("the first tick fails")

    periodic = Periodic(step, 0.001, name="test:periodic", failure="the step failed", log=_log)
    periodic.start()
    try:
        await until(lambda: len(calls) >= 3)
    finally:
        await periodic.stop()
    assert "the step failed" in caplog.text
    assert "the first tick fails" in caplog.text


async def test_a_stopped_periodic_runs_no_more_and_stops_twice_safely() -> None:
    calls: list[int] = []

    async def step() -> None:
        calls.append(1)

    periodic = Periodic(step, 0.001, name="test:periodic", failure="failed", log=_log)
    periodic.start()
    await until(lambda: len(calls) >= 1)
    await periodic.stop()
    await periodic.stop()
    seen = len(calls)
    await asyncio.sleep(0.02)
    assert len(calls) == seen


async def test_keep_trying_returns_the_first_success_and_logs_each_failure(
    caplog: pytest.LogCaptureFixture,
) -> None:
    attempts: list[int] = []

    async def attempt() -> str:
        attempts.append(1)
        if len(attempts) < 3:
            raise ConnectionError(f"refused #{len(attempts)}")
        return "connected"

    with caplog.at_level(logging.WARNING):
        result = await keep_trying(attempt, failure="broker down", log=_log, pause_seconds=0)
    assert result == "connected"
    assert len(attempts) == 3
    assert "broker down (attempt 1)" in caplog.text
    assert "broker down (attempt 2)" in caplog.text
    assert "refused #2" in caplog.text


async def test_cancelling_keep_trying_stops_the_retries() -> None:
    attempts: list[int] = []

    async def attempt() -> None:
        attempts.append(1)
        raise ConnectionError("refused")

    task = asyncio.create_task(keep_trying(attempt, failure="down", log=_log, pause_seconds=0.001))
    await until(lambda: len(attempts) >= 2)
    await cancel(task)
    assert task.cancelled()
    seen = len(attempts)
    await asyncio.sleep(0.02)
    assert len(attempts) == seen


async def test_cancel_accepts_no_task() -> None:
    await cancel(None)


async def test_a_part_that_never_stops_is_abandoned_after_its_time_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    released = asyncio.Event()

    async def never_stops() -> None:
        while not released.is_set():  # swallows every cancellation, as a hung client may
            with contextlib.suppress(asyncio.CancelledError):
                await released.wait()

    started = asyncio.get_running_loop().time()
    with caplog.at_level(logging.ERROR):
        await stop_within(never_stops(), "the consumer", _log, seconds=0.05)
    assert asyncio.get_running_loop().time() - started < 1
    assert "the consumer did not stop within 0 s: abandoned" in caplog.text
    released.set()  # the abandoned part ends (the test stops what it started)
    await asyncio.sleep(0.01)
    stopped: list[str] = []

    async def stops() -> None:
        stopped.append("yes")

    await stop_within(stops(), "a quick part", _log, seconds=1)
    assert stopped == ["yes"]


async def test_a_pacer_lets_the_loop_run_once_its_work_adds_up() -> None:
    ran: list[int] = []

    async def other() -> None:
        while True:
            ran.append(len(ran))
            await asyncio.sleep(0)

    running = asyncio.create_task(other())
    await asyncio.sleep(0)
    pace = Pacer(every=10).step
    await pace(4)
    await pace(5)
    assert len(ran) == 1  # 9 units: the loop has not run
    await pace()
    assert len(ran) == 2  # 10: it ran once, and the count starts again
    await pace(9)
    assert len(ran) == 2
    await pace(25)
    assert len(ran) == 3
    running.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await running
