"""Presence is part of the log (issue 22): a table rebuilt by another host, from the log
or from a snapshot, has the same players away with the same windows, and a window runs
on from where it stood, for every game (in process: the in-memory log and store, one
fake clock shared by the hosts)."""

from __future__ import annotations

import asyncio
import random

import pytest

from croupier.game import ClockSettings, Unknown
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog, InMemorySnapshotStore
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.service.snapshots import SnapshotPolicy
from tests.support.games import GameAtTable
from tests.support.table import FakeClock, Seeds, until

WINDOW_MS = 10_000
CLOCK = ClockSettings(turn_ms=3_600_000, reconnect_ms=WINDOW_MS)
EVERY_COMMAND = SnapshotPolicy(every=1, at_hand_end_after=1, sweep_seconds=3600)


async def host_on(
    log: InMemoryCommandLog, clock: FakeClock, store: InMemorySnapshotStore
) -> TableHost:
    """A started host on `log` and `store`, on `clock`'s time."""
    bus = InMemoryBus()
    await bus.start()
    host = TableHost(
        engines=load_engines(),
        command_log=log,
        publisher=bus,
        now_ms=clock,
        call_later=clock.call_later,
        seeds=Seeds("presence"),
        snapshot_store=store,
        snapshot_policy=EVERY_COMMAND,
    )
    await host.start()
    return host


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


@pytest.mark.parametrize("from_snapshot", [False, True], ids=["log", "snapshot"])
async def test_a_rebuilt_table_resumes_the_window_where_it_stood(
    game: GameAtTable, from_snapshot: bool
) -> None:
    log, clock = InMemoryCommandLog(), FakeClock()
    store = InMemorySnapshotStore()
    first = await host_on(log, clock, store)
    table_id = await first.open_table(game.name, game.options, CLOCK)
    for seat, player in enumerate(game.players):
        await first.seat(table_id, player, seat, game.stack)
    rng = random.Random(22)
    for n in range(4):  # the game under way
        to_act = game.to_act(first.view(table_id, "").view)
        assert to_act is not None
        action = game.legal_action(first.view(table_id, to_act).view, rng)
        await first.act(table_id, to_act, f"a{n}", action)
    leaver, back = game.players[-1], game.players[0]
    await first.disconnect(table_id, leaver)
    await first.disconnect(table_id, back)
    clock.advance(4_000)
    await first.reconnect(table_id, back)
    await first.disconnect(table_id, leaver)  # a second call keeps the first window
    digest = first.digest(table_id)
    await first.stop()
    if not from_snapshot:
        store.snapshots.clear()  # rebuilt from the log alone (no snapshot topic left)
        store.watermarks.clear()

    second = await host_on(log, clock, store)
    assert second.digest(table_id) == digest
    assert second.is_disconnected(table_id, leaver)
    assert not second.is_disconnected(table_id, back)
    await settle()  # the resumed window's timer is set (in the background) at this time
    clock.advance(WINDOW_MS - 4_000 - 1)  # the window's last millisecond
    await settle()
    assert leaver in second.view(table_id, "").seated
    clock.advance(1)
    if game.leaves_after_window:  # (backgammon asks its evaluator first)
        await until(lambda: leaver not in second.view(table_id, "").seated)
    else:
        await settle()
        assert leaver in second.view(table_id, "").seated
        assert second.is_disconnected(table_id, leaver)
    await second.stop()


async def test_presence_of_a_player_not_seated_is_refused_and_logs_nothing(
    game: GameAtTable,
) -> None:
    log, clock = InMemoryCommandLog(), FakeClock()
    host = await host_on(log, clock, InMemorySnapshotStore())
    table_id = await host.open_table(game.name, game.options, CLOCK)
    end = log.end_offset(0)
    with pytest.raises(Unknown):
        await host.disconnect(table_id, "stranger")
    with pytest.raises(Unknown):
        await host.reconnect(table_id, "stranger")
    assert log.end_offset(0) == end
    await host.stop()
