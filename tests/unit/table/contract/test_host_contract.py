"""The table host's contract, the same for every game (each test runs once per game): a
refused command is not logged and changes nothing, a command id is applied once, a table
rebuilt from its log is the lost one and plays on, a clock expiry is applied once (also
one missed while the host was down), unknown tables and players are not found.

The log and bus are the in-memory adapters; the clock is the test's (`FakeClock`) except
where the host's own timers are what is tested.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from croupier.game import ClockSettings, RuleBroken
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from tests.support.contract import make_host, open_full_table, play_random, waiting_for
from tests.support.games import GameAtTable
from tests.support.refusals import status_name
from tests.support.table import FakeClock, Seeds, logged_entries


async def test_rejected_command_is_not_logged_and_changes_nothing(
    game: GameAtTable, bus: InMemoryBus
) -> None:
    log = InMemoryCommandLog()
    host = make_host(log, bus, FakeClock())
    await host.start()
    table_id = await open_full_table(host, game)
    digest = host.digest(table_id)
    logged = len(await logged_entries(log))
    to_act = waiting_for(host, game, table_id)
    other = next(p for p in game.players if p != to_act)
    legal = game.legal_action(host.view(table_id, to_act).view, random.Random(1))
    with pytest.raises(RuleBroken) as caught:
        await host.act(table_id, other, "c1", legal)
    assert status_name(caught.value) == "failed_precondition"
    with pytest.raises(RuleBroken) as malformed:
        await host.act(table_id, to_act, "c2", {"action": "dance"})
    assert status_name(malformed.value) == "invalid_argument"
    assert host.digest(table_id) == digest
    assert len(await logged_entries(log)) == logged


async def test_duplicate_command_id_is_applied_once(game: GameAtTable, bus: InMemoryBus) -> None:
    log = InMemoryCommandLog()
    host = make_host(log, bus, FakeClock())
    await host.start()
    table_id = await open_full_table(host, game)
    to_act = waiting_for(host, game, table_id)
    action = game.legal_action(host.view(table_id, to_act).view, random.Random(1))
    first = await host.act(table_id, to_act, "same-id", action)
    again = await host.act(table_id, to_act, "same-id", action)
    assert again.version == first.version


async def test_rebuilt_table_has_the_same_digest_and_views_and_play_continues(
    game: GameAtTable, bus: InMemoryBus
) -> None:
    log = InMemoryCommandLog()
    clock = FakeClock()
    host = make_host(log, bus, clock)
    await host.start()
    table_id = await open_full_table(host, game)
    rng = random.Random(7)
    await play_random(host, game, table_id, 60, rng)
    digest = host.digest(table_id)
    views = {p: host.view(table_id, p).view for p in ["", *game.players]}
    await host.stop()

    rebuilt = make_host(log, bus, clock, label="after-restart")
    await rebuilt.start()
    assert rebuilt.digest(table_id) == digest
    assert {p: rebuilt.view(table_id, p).view for p in ["", *game.players]} == views
    await play_random(rebuilt, game, table_id, 20, rng)
    assert rebuilt.view(table_id, "").version > host.view(table_id, "").version


async def test_unknown_table_and_unseated_player_are_not_found(
    game: GameAtTable, bus: InMemoryBus
) -> None:
    host = make_host(InMemoryCommandLog(), bus, FakeClock())
    await host.start()
    table_id = await open_full_table(host, game)
    to_act = waiting_for(host, game, table_id)
    action = game.legal_action(host.view(table_id, to_act).view, random.Random(1))
    with pytest.raises(RuleBroken) as unknown:
        await host.act("nope", to_act, "c", action)
    assert status_name(unknown.value) == "not_found"
    with pytest.raises(RuleBroken) as stranger:
        await host.act(table_id, "mallory", "c", action)
    assert status_name(stranger.value) == "not_found"
    with pytest.raises(RuleBroken) as full:
        await host.seat(table_id, "mallory", len(game.players) - 1, game.stack)
    assert status_name(full.value) == "failed_precondition"


async def test_clock_expiry_applies_the_timeout_once(game: GameAtTable, bus: InMemoryBus) -> None:
    log = InMemoryCommandLog()
    host = TableHost(engines=load_engines(), command_log=log, publisher=bus, seeds=Seeds("clock"))
    await host.start()
    table_id = await open_full_table(host, game, ClockSettings(turn_ms=50))
    first = waiting_for(host, game, table_id)
    for _ in range(100):
        await asyncio.sleep(0.02)
        if game.to_act(host.view(table_id, "").view) != first:
            break
    await host.stop()
    timeouts = [e for e in await logged_entries(log) if e.kind == "timeout"]
    assert timeouts and timeouts[0].player == first
    ids = [e.command_id for e in timeouts]
    assert len(ids) == len(set(ids))


async def test_expiry_missed_while_down_is_applied_once_after_rebuild(
    game: GameAtTable, bus: InMemoryBus
) -> None:
    log = InMemoryCommandLog()
    clock = FakeClock()
    host = make_host(log, bus, clock)
    await host.start()
    table_id = await open_full_table(host, game, ClockSettings(turn_ms=10_000))
    waiting = waiting_for(host, game, table_id)
    await host.stop()  # the host dies before the clock runs out

    clock.now += 60_000  # ...and comes back after the deadline
    for attempt in range(2):  # two rebuilds: the expiry is applied by the first only
        rebuilt = make_host(log, bus, clock, label=f"r{attempt}")
        await rebuilt.start()
        await asyncio.sleep(0.05)
        await rebuilt.stop()
    entries = await logged_entries(log)
    timeouts_for_waiting = [e for e in entries if e.kind == "timeout" and e.player == waiting]
    assert len(timeouts_for_waiting) == 1
