"""Backgammon tables under the host's clocks, disconnection and reconnection.

- Rules 7-10, OQ 5, vector 25: the turn clock resets every turn, the player's main clock
  (the host's reserve) runs only once the turn clock is at 0 and carries over; when both
  are spent the player loses (single game: the current cube x 1; series: the series).
- Rule 11, vector 24: a player who reconnects within the window finds the exact state
  he left (the host's contract for every game: tests/unit/table/contract/
  test_presence_contract.py); one who does not is unseated by the host with GNU
  Backgammon's evaluation in the logged command, and the game settles from it
  (rule 12). The log replays to the same table without asking gnubg again.
"""

from __future__ import annotations

import asyncio
import json
from decimal import ROUND_HALF_UP, Decimal

import pytest

from croupier.backgammon import engine as backgammon_engine
from croupier.game import Act, ClockSettings, SeatPlayer, StartHand
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from tests.support.backgammon import (
    PLAYERS,
    USD_SINGLE,
    full_table,
    logged,
    play_first_move,
    public_of,
    started_host,
)
from tests.support.table import FakeClock, Seeds, settlements, until

pytestmark = pytest.mark.timeout(60)

# ---- clocks ------------------------------------------------------------------------


async def test_rule_10_oq_5_clocks_run_out_and_the_player_loses_at_the_cube() -> None:
    """Turn 300 ms + main clock 200 ms; bob doubled, ann took: bob never rolls again."""
    now = FakeClock()
    host, log, bus = await started_host("clock", now)
    clock = ClockSettings(turn_ms=300, reserve_ms=200, reconnect_ms=60_000)
    table_id = await full_table(host, USD_SINGLE, clock)
    first = await play_first_move(host, table_id)
    other = next(p for p in PLAYERS if p != first)
    await host.act(table_id, other, "d", {"action": "double"})
    await host.act(table_id, first, "t", {"action": "take"})
    now.advance(499)
    await asyncio.sleep(0.05)
    assert settlements(bus, table_id) == [] and public_of(host, table_id)["to_act"] == other
    now.advance(1)
    await until(lambda: bool(settlements(bus, table_id)))
    await host.stop()

    settlement = settlements(bus, table_id)[0]
    details = json.loads(settlement.details_json)
    assert details == {
        "winner": first,
        "result": "single",
        "cube": 2,
        "points": 2,
        "how": "timeout",
        "amount": 200,
    }
    fee = 2 * 13  # 6.5 % of $2.00 per player (rules 40, 42)
    assert dict(settlement.deltas) == {first: 200 - fee, other: -200}
    entries = await logged(log)
    take = next(e for e in entries if e.command_id == f"act:{first}:t")
    (timeout,) = [e for e in entries if e.kind == "timeout" and e.index < take.index + 3]
    assert timeout.player == other
    assert timeout.at_ms - take.at_ms == 300 + 200  # the turn clock, then the main clock


async def test_oq_5_a_series_player_whose_clocks_run_out_loses_the_series() -> None:
    now = FakeClock()
    host, log, bus = await started_host("series-clock", now)
    options = {"mode": "series", "stake": 1000, "points": 7, "currency": "EUR"}
    table_id = await full_table(host, options, ClockSettings(turn_ms=100, reserve_ms=100))
    mover = public_of(host, table_id)["to_act"]
    now.advance(200)
    await until(lambda: bool(settlements(bus, table_id)))
    now.advance(60_000)  # long after: no clock of a next game runs out
    await asyncio.sleep(0.05)
    await host.stop()
    (settlement,) = settlements(bus, table_id)  # the series is over: no new game
    winner = next(p for p in PLAYERS if p != mover)
    assert dict(settlement.deltas) == {winner: 1000 - 2 * 65, mover: -1000}
    assert settlement.currency == "EUR"
    details = json.loads(settlement.details_json)
    assert details["how"] == "timeout" and details["match_winner"] == winner
    assert [e.kind for e in await logged(log)].count("start_hand") == 1


async def test_vector_25_the_main_clock_runs_only_after_the_turn_clock_and_carries_over() -> None:
    """Turn 10 s, main 40 s: 15 s past the turn clock leaves 25 s; the next turn has
    10 s + 25 s; the other player's main clock is untouched."""
    now = FakeClock()
    host, _, _ = await started_host("v25", now)
    table_id = await full_table(
        host, USD_SINGLE, ClockSettings(turn_ms=10_000, reserve_ms=40_000, reconnect_ms=60_000)
    )
    first = public_of(host, table_id)["to_act"]
    other = next(p for p in PLAYERS if p != first)
    assert host.view(table_id, first).turn_seconds_left == 50.0
    now.now += 25_000  # the turn clock ran out 15 s ago
    assert host.view(table_id, first).turn_seconds_left == 25.0
    await play_first_move(host, table_id)
    now.now += 4_000
    await host.act(table_id, other, "r", {"action": "roll"})
    plays = host.view(table_id, other).view["legal"]["plays"]
    await host.act(table_id, other, "m", {"action": "move", "play": plays[0]})
    assert host.view(table_id, first).turn_seconds_left == 35.0  # reset turn + 25 s left
    now.now += 5_000
    assert host.view(table_id, first).turn_seconds_left == 30.0
    await host.act(table_id, first, "r2", {"action": "roll"})
    plays = host.view(table_id, first).view["legal"]["plays"]
    await host.act(table_id, first, "m2", {"action": "move", "play": plays[0]})
    assert host.view(table_id, other).turn_seconds_left == 50.0  # never dipped into it
    await host.stop()


async def test_rule_7_rolling_does_not_restart_the_turn_clock() -> None:
    now = FakeClock()
    host, _, _ = await started_host("rule7", now)
    table_id = await full_table(
        host, USD_SINGLE, ClockSettings(turn_ms=10_000, reserve_ms=40_000, reconnect_ms=60_000)
    )
    await play_first_move(host, table_id)
    player = public_of(host, table_id)["to_act"]
    now.now += 8_000
    await host.act(table_id, player, "r", {"action": "roll"})
    # 8 s of the 10 s turn are gone: 2 s of turn clock + 40 s main clock remain.
    assert host.view(table_id, player).turn_seconds_left == 42.0
    await host.stop()


def test_rule_7_turn_key_one_turn_is_roll_and_move() -> None:
    """What a host needs to time a turn as one: the key of the rules' `turns`."""
    engine = backgammon_engine.ENGINE
    state = engine.open({"mode": "single", "stake": 1})

    def turn_key(player: str) -> str | None:
        return next((t.key for t in engine.turns(state) if t.player == player), None)

    for seat, player in enumerate(PLAYERS):
        state, _ = engine.apply(state, SeatPlayer(player, seat))
    state, _ = engine.apply(state, StartHand(b"k" * 32))
    (first,) = [t.player for t in engine.turns(state)]
    other = next(p for p in PLAYERS if p != first)
    opening = turn_key(first)
    assert opening is not None and turn_key(other) is None
    play = engine.legal_actions(state, first)["plays"][0]
    state, _ = engine.apply(state, Act(first, {"action": "move", "play": play}))
    before_roll = turn_key(other)
    state, _ = engine.apply(state, Act(other, {"action": "roll"}))
    assert turn_key(other) == before_roll != opening  # roll + move: one turn
    play = engine.legal_actions(state, other)["plays"][0]
    state, _ = engine.apply(state, Act(other, {"action": "move", "play": play}))
    state, _ = engine.apply(state, Act(first, {"action": "double"}))
    answer = turn_key(other)
    assert answer is not None and answer != before_roll  # answering a double: its own
    assert turn_key(first) is None


async def test_clock_and_window_come_from_the_table_options() -> None:
    host, log, _ = await started_host("options")
    options = {**USD_SINGLE, "turn_seconds": 45, "main_clock_seconds": 240}
    table_id = await host.open_table("backgammon", {**options, "reconnect_seconds": 180}, None)
    (opening,) = [e for e in await logged(log) if e.table_id == table_id]
    assert opening.body["clock"] == {
        "turn_ms": 45_000,
        "reserve_ms": 240_000,
        "reconnect_ms": 180_000,
    }
    assert backgammon_engine.ENGINE.traits.default_clock.reconnect_ms == 180_000  # ¶9: 3 minutes
    await host.stop()


# ---- disconnection -----------------------------------------------------------------


def expected_money(
    equity: str, stake: int, cube: int, connected: str, leaver: str
) -> dict[str, int]:
    """OQ 7 and rules 40-42 written again: |E| x stake x cube to the cent, commission."""
    e = Decimal(equity)
    amount = int((abs(e) * stake * cube).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    if amount == 0:
        return {connected: 0, leaver: 0}
    fee = min(2 * (3 if amount < 50 else -(-amount * 65 // 1000)), amount)
    winner, loser = (connected, leaver) if e > 0 else (leaver, connected)
    return {winner: amount - fee, loser: -amount}


async def test_rule_12_no_return_in_time_settles_from_gnubg_and_replays_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = FakeClock()
    host, log, bus = await started_host("abandon", now)
    table_id = await full_table(
        host, {**USD_SINGLE, "stake": 500}, ClockSettings(turn_ms=3_600_000, reconnect_ms=180_000)
    )
    await play_first_move(host, table_id)
    leaver = public_of(host, table_id)["to_act"]
    connected = next(p for p in PLAYERS if p != leaver)
    await host.act(table_id, leaver, "d", {"action": "double"})
    await host.act(table_id, connected, "t", {"action": "take"})
    await host.disconnect(table_id, leaver)
    await asyncio.sleep(0.05)  # the window's timer is set (in the background) at 0 s
    now.advance(179_999)
    await asyncio.sleep(0.05)
    assert [e.kind for e in await logged(log)].count("unseat") == 0
    now.advance(1)
    await until(lambda: bool(settlements(bus, table_id)))
    digest = host.digest(table_id)
    await host.stop()

    (unseat,) = [e for e in await logged(log) if e.kind == "unseat"]
    assert unseat.player == leaver and unseat.command_id.startswith(f"abandon:{leaver}:")
    evaluation = unseat.body["evaluation"]
    assert evaluation["player"] == connected
    assert evaluation["evaluator"] == "gnubg 2-ply cubeful" and evaluation["phase"] == "turn"
    (settlement,) = settlements(bus, table_id)
    assert dict(settlement.deltas) == expected_money(
        evaluation["equity"], 500, 2, connected, leaver
    )
    details = json.loads(settlement.details_json)
    assert details["how"] == "abandoned" and details["cube"] == 2
    view = host.view(table_id, "")
    assert view.seated == (connected,) and view.view["abandoned"]["player"] == leaver

    # Replay: the same table from the log, gnubg never asked (it would fail here).
    async def no_gnubg(*args: object) -> None:
        raise AssertionError("gnubg asked during replay")

    monkeypatch.setattr(backgammon_engine, "gnubg_evaluation", no_gnubg)
    replay_bus = InMemoryBus()
    await replay_bus.start()
    rebuilt = TableHost(
        engines=load_engines(), command_log=log, publisher=replay_bus, seeds=Seeds("x")
    )
    await rebuilt.start()
    assert rebuilt.digest(table_id) == digest
    await rebuilt.stop()
