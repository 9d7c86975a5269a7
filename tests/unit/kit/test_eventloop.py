"""croupier.kit.eventloop: service processes run their main coroutine on uvloop."""

from __future__ import annotations

import asyncio

import pytest
import uvloop

from croupier.kit import eventloop


def test_run_returns_the_result_of_the_coroutine_run_on_uvloop() -> None:
    async def main() -> tuple[str, int]:
        await asyncio.sleep(0)
        return type(asyncio.get_running_loop()).__module__, 42

    module, value = eventloop.run(main())

    assert module == uvloop.Loop.__module__
    assert value == 42


def test_run_raises_what_the_coroutine_raises_and_closes_its_loop() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def main() -> None:
        loops.append(asyncio.get_running_loop())
        raise LookupError("no such table")

    with pytest.raises(LookupError, match=r"^no such table$"):
        eventloop.run(main())
    assert loops[0].is_closed()
