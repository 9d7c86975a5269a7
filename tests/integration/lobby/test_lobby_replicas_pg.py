"""Two lobby replicas on one PostgreSQL schema: one ticks at a time (the tick lock), the
other takes the ticks over when the first stops, and a seat freed by one replica is seen
by the other's free-seat index at its tick, so its waiting player is seated there."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from croupier.kit.bus.memory import InMemoryBus
from croupier.lobby.adapters.host_local import LocalTableHost
from croupier.lobby.adapters.postgres import PostgresRepository, PostgresTickLock
from croupier.lobby.bootstrap import Wired, build_lobby, open_database, utc_now
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost

TICK = 0.02


async def eventually(condition: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        await asyncio.sleep(0.02)


@pytest.fixture
async def shared(postgres_dsn: str, unique: Callable[[str], str]) -> AsyncIterator[Any]:
    """A schema and a table host in this process, for lobbies started on them."""
    schema = unique("lobby")
    pool = await open_database(postgres_dsn, schema)
    bus = InMemoryBus()
    await bus.start()
    host = TableHost(command_log=InMemoryCommandLog(), publisher=bus, engines=load_engines())
    await host.start()
    try:
        yield pool, schema, host
    finally:
        await host.stop()
        await bus.stop()
        await pool.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await pool.close()


class SteppedClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 12, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def replica(shared: Any, tick_seconds: float | None = TICK, clock: Any = None) -> Wired:
    """A lobby replica on the shared schema and host (a ticker of its own unless None)."""
    pool, schema, host = shared
    return build_lobby(
        pool=pool,
        schema=schema,
        host=LocalTableHost(host),
        bus=None,
        tick_seconds=tick_seconds,
        clock=clock or utc_now,
    )


async def test_the_tick_lock_is_held_by_one_replica_at_a_time_per_schema(shared: Any) -> None:
    pool, schema, _ = shared
    first, second = PostgresTickLock(pool, schema), PostgresTickLock(pool, schema)
    async with first() as got:
        assert got
        async with second() as also:
            assert not also
        async with PostgresTickLock(pool, f"{schema}_other")() as elsewhere:
            assert elsewhere  # another lobby's schema ticks on its own
    async with second() as got:
        assert got  # released with the tick


async def test_two_replicas_never_tick_at_once_and_one_takes_over_from_the_other(
    shared: Any,
) -> None:
    running: list[str] = []
    overlaps: list[tuple[str, ...]] = []
    ticks = {"a": 0, "b": 0}
    async with AsyncExitStack() as stack:
        replicas = {name: replica(shared) for name in ticks}
        for name, wired in replicas.items():
            stack.push_async_callback(wired.stop)
            process = wired.matchmaking.process

            async def slow_process(name: str = name, process: Any = process) -> Any:
                running.append(name)
                if len(running) > 1:
                    overlaps.append(tuple(running))
                try:
                    await asyncio.sleep(3 * TICK)  # long enough for the other to try meanwhile
                finally:
                    # A stop cancels the tick here: it no longer runs (nor holds the lock).
                    running.remove(name)
                ticks[name] += 1
                return await process()

            wired.matchmaking.process = slow_process  # type: ignore[method-assign]
        await eventually(lambda: sum(ticks.values()) >= 10)
        assert overlaps == []
        await replicas["a"].stop()
        after = ticks["b"]
        await eventually(lambda: ticks["b"] >= after + 5)  # b ticks alone now
        assert overlaps == []


async def test_a_seat_freed_on_one_replica_seats_the_player_waiting_on_the_other(
    shared: Any,
) -> None:
    pool, schema, _ = shared
    clock = SteppedClock()
    first, second = replica(shared, None, clock), replica(shared, None, clock)
    try:
        heads_up = {"variant": "nlhe", "small_blind": 1, "big_blind": 2, "min_buy_in": 40,
                    "max_buy_in": 200, "seats": 2}  # fmt: skip
        opened = await first.tables.open(
            player="ann", request_key="t", game="poker", options=heads_up, stack=100
        )
        table_id = opened.table.table_id
        # The other seat held for a player the host never seated (a lobby died meanwhile).
        held, _ = opened.table.reserve("late", clock(), timedelta(seconds=30))
        await PostgresRepository(pool, schema).save_table(
            replace(opened, table=held, version=opened.version + 1)
        )
        place = await second.waiting.join(player="cid", game="poker", options=heads_up, stack=100)
        assert place == 1
        clock.now += timedelta(seconds=30)
        assert await first.tables.expire_holds() == ["late"]  # freed on the first replica
        assert await second.waiting.seat_waiting() == [("cid", table_id)]
        assert (await first.tables.get(table_id)).table.players() == ("ann", "cid")
    finally:
        await first.stop()
        await second.stop()
