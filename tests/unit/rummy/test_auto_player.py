"""Rummy tables under the host's clock: the auto-player, disconnection, reconnection.

- Rule 45: the turn clock times a whole turn (draw … discard), not each action.
- Rule 45: nobody acts and a whole gin round completes by clock expiries alone; every
  expiry did what the rule says, checked from the player's own view and the logged deal:
  draw the top card of the stock and discard that same card (on the first up-card, where
  the stock may not be drawn yet, pass); never meld or knock. The round ends with the
  stock (a draw: no chips move, OQ 24) and its settlement is requested once.
- OQ 26: a player who drew by hand and then ran out of time discards the card drawn this
  turn, also when it was taken from the discard pile.
- Rule 43 (a disconnected player keeps the seat past the reconnection window, is played
  by the clock, `Reconnect` returns his view): the host's contract for every game,
  tests/unit/table/contract/test_presence_contract.py (`leaves_after_window`).
- Rule 45: automatic turns are paced (`AUTO_PLAY_MS`), so a table of automatic players
  logs a few entries a second; rule 46: its round is cancelled 5 minutes after all became
  automatic, settled with every fee back, and a replay of the log gives the same table.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable

from croupier.game import ClockSettings
from croupier.kit.bus.memory import InMemoryBus
from croupier.rummy.engine import ENGINE
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.core.clocks import AUTO_PLAY_MS
from croupier.table.core.history import initial_state
from croupier.table.core.table_state import step
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.service.money import Buyins
from tests.support.rummy import (
    PLAYERS,
    check_settlements,
    log_entries,
    running_service,
)
from tests.support.table import FakeClock, Seeds, settlements, until


async def run_clock(
    now: FakeClock, step_ms: int, done: Callable[[], bool], most_ms: int = 3_600_000
) -> None:
    """Move time on by `step_ms` at a time, letting the host play what falls due, until
    `done()` (at most `most_ms` of the table's time)."""
    start = now.now
    while not done():
        assert now.now - start < most_ms, "the table's clock ran on without it happening"
        now.advance(step_ms)
        await asyncio.sleep(0.002)


def rounds_ended(host: TableHost, table_id: str) -> int:
    last = host.view(table_id, "").view["last_round"]
    return 0 if last is None else int(last["round"])


async def test_rule_45_a_gin_round_finishes_by_timeouts_alone() -> None:
    bus = InMemoryBus()
    await bus.start()
    log = InMemoryCommandLog()
    now = FakeClock()
    host = TableHost(
        engines=load_engines(),
        command_log=log,
        publisher=bus,
        seeds=Seeds("t45"),
        buyins=Buyins(play_currencies=()),  # CHIP settled by the wallet: the request is seen
        now_ms=now,
        call_later=now.call_later,
    )
    await host.start()
    options = {"variant": "gin", "players": 2, "round_fee": "20", "chip_ratio": 2}
    table_id = await host.open_table("rummy", options, ClockSettings(turn_ms=15))
    for seat, player in enumerate(PLAYERS[:2]):
        await host.seat(table_id, player, seat, 500)
    await run_clock(now, 15, lambda: rounds_ended(host, table_id) >= 1)
    await host.stop()

    entries = await log_entries(log, table_id)
    state = initial_state(ENGINE, entries[0])
    kinds: Counter[str] = Counter()
    drawn: dict[str, tuple[list[str], str]] = {}  # player → (hand before the draw, card)
    ended = None
    for entry in entries[1:]:
        before = state
        state = step(ENGINE, state, entry).state
        if entry.kind != "timeout":
            assert entry.kind in ("seat", "start_hand")
            continue
        if before.engine_state.rounds_started > 1 or ended is not None:
            break  # the next round had begun when the host stopped
        player = entry.player
        seen = ENGINE.view(before.engine_state, player)  # what the player saw
        after = ENGINE.snapshot(state.engine_state)["round"]
        hand_before = seen["round"]["hand"]
        hand_after = after["hands"][player]
        stock_top = ENGINE.snapshot(before.engine_state)["round"]["stock"][:1]
        legal = seen["legal"]
        assert after["melds"] == []  # never melds, knocks or goes gin
        if seen["round"]["phase"] == "first_upcard" and "pass" in legal["actions"]:
            kinds["pass"] += 1
            assert hand_after == hand_before
        elif seen["round"]["phase"] in ("first_upcard", "draw"):
            kinds["draw"] += 1
            assert legal["draw_from"][0] == "stock"
            assert hand_after == [*hand_before, *stock_top]  # the stock's top card
            drawn[player] = (hand_before, stock_top[0])
        else:
            kinds["discard"] += 1
            assert seen["round"]["phase"] == "discard"
            hand, card = drawn.pop(player)
            assert after["discard_pile"][-1] == card  # that same card
            assert Counter(hand_after) == Counter(hand)
        if after["result"] is not None:
            ended = after["result"]
    assert ended == "draw"  # the stock ran down to two cards
    assert kinds["pass"] == 2 and kinds["draw"] == kinds["discard"] > 20
    (settlement, *_) = settlements(bus, table_id)
    (detail,) = check_settlements([settlement], table_id, 1, PLAYERS[:2])
    assert detail["ending"] == "draw" and set(detail["deltas"].values()) == {0}


async def _auto_discard_after_a_manual_draw(variant: str, source: str) -> None:
    now = FakeClock()  # the passes and the draw take no table time: no clock runs out
    async with running_service(f"oq26-{variant}-{source}", now) as service:
        host = service.host
        options = {"variant": variant, "players": 2}
        table_id = await host.open_table("rummy", options, ClockSettings(turn_ms=600))
        for seat, player in enumerate(PLAYERS[:2]):
            await host.seat(table_id, player, seat, 500)
        # From the stock: both pass a gin up-card first (the stock is closed until then);
        # from the pile: the first player takes the up-card.
        for _ in range(2):
            phase = host.view(table_id, "").view["round"]["phase"]
            if phase != "first_upcard" or source == "discard":
                break
            player = host.view(table_id, "").view["round"]["to_act"]
            await host.act(table_id, player, f"pass-{player}", {"action": "pass"})
        player = host.view(table_id, "").view["round"]["to_act"]
        before = host.view(table_id, player).view["round"]
        top = before["discard_pile"][-1]
        drew = await host.act(table_id, player, "draw", {"action": "draw", "from": source})
        hand = drew.view["round"]["hand"]
        (card,) = (Counter(hand) - Counter(before["hand"])).elements()
        if source == "discard":
            assert card == top
        now.advance(600)
        await until(lambda: host.view(table_id, "").view["round"]["to_act"] != player, 5)
        after = host.view(table_id, player).view["round"]
        assert after["discard_pile"][-1] == card  # the card drawn this turn went back
        assert Counter(after["hand"]) == Counter(before["hand"])
        assert after["melds"] == []
        kinds = [e.kind for e in await log_entries(service.log, table_id) if e.player == player]
        assert kinds[-2:] == ["act", "timeout"]


async def test_oq_26_auto_player_discards_the_card_drawn_from_the_stock() -> None:
    await _auto_discard_after_a_manual_draw("rummy51", "stock")
    await _auto_discard_after_a_manual_draw("gin", "stock")


async def test_oq_26_auto_player_discards_the_card_taken_from_the_pile() -> None:
    """Rummy 51 obliges a card taken from the pile to be melded; the auto-player may not."""
    await _auto_discard_after_a_manual_draw("rummy51", "discard")
    await _auto_discard_after_a_manual_draw("oklahoma_gin", "discard")


async def test_rule_45_the_turn_clock_times_the_whole_turn() -> None:
    """Drawing does not give a fresh turn time: the clock runs from the turn's start until
    the discard; the next player then gets the full turn time, and so does the first
    player on their next turn (nothing carried over from the last one)."""
    now = FakeClock()
    async with running_service("turn-clock", now) as service:
        host = service.host
        options = {"variant": "rummy", "players": 2}
        table_id = await host.open_table("rummy", options, ClockSettings(turn_ms=20_000))
        for seat, player in enumerate(PLAYERS[:2]):
            await host.seat(table_id, player, seat, 500)
        player = host.view(table_id, "").view["round"]["to_act"]
        assert host.view(table_id, player).turn_seconds_left == 20.0
        now.advance(600)
        drew = await host.act(table_id, player, "d", {"action": "draw", "from": "stock"})
        assert drew.view["round"]["to_act"] == player
        assert drew.turn_seconds_left == 19.4  # the same turn, the same clock
        card = drew.view["round"]["hand"][-1]
        done = await host.act(table_id, player, "x", {"action": "discard", "card": card})
        following = done.view["round"]["to_act"]
        assert following != player
        assert host.view(table_id, following).turn_seconds_left == 20.0
        drew = await host.act(table_id, following, "d", {"action": "draw", "from": "stock"})
        card = drew.view["round"]["hand"][-1]
        await host.act(table_id, following, "x", {"action": "discard", "card": card})
        assert host.view(table_id, player).view["round"]["to_act"] == player
        assert host.view(table_id, player).turn_seconds_left == 20.0


async def test_rule_45_automatic_turns_are_paced_a_few_log_entries_a_second() -> None:
    """Rule 45 on the host: once timed out, a player's turns are played by the system
    `AUTO_PLAY_MS` (1 s) after they start, not at once and not after the whole turn
    clock (2 s here). An idle Rummy 51 or Rummy 40 table whose players are all automatic
    turns its discard pile over for ever: it once logged thousands of entries a second
    (6,319 in 3 s); now each automatic turn is two entries (draw, discard) a second."""
    bus = InMemoryBus()
    await bus.start()
    log = InMemoryCommandLog()
    now = FakeClock()
    host = TableHost(
        engines=load_engines(),
        command_log=log,
        publisher=bus,
        now_ms=now,
        call_later=now.call_later,
    )
    await host.start()
    tables = {}
    for variant in ("rummy51", "rummy40"):
        tables[variant] = await host.open_table(
            "rummy", {"variant": variant, "players": 2}, ClockSettings(turn_ms=2_000)
        )
        await host.seat(tables[variant], "a", 0, 1000)
        await host.seat(tables[variant], "b", 1, 1000)
    end = now.now + 7_500
    await run_clock(now, 50, lambda: now.now >= end)
    await host.stop()
    await bus.stop()
    assert AUTO_PLAY_MS == 1_000
    for variant, table_id in tables.items():
        entries = await log_entries(log, table_id)
        # Each player's first turn runs out on the turn clock (4 s for both), then one
        # automatic turn a second: about 3 more. Before the fix: thousands.
        assert len(entries) <= 3 + 2 + 2 * 2 + 2 * 4, (variant, len(entries))
        timeouts = [e for e in entries if e.kind == "timeout"]
        turn_started = next(e.at_ms for e in entries if e.kind == "start_hand")
        timed_out: set[str] = set()
        automatic_turns = 0
        for i, entry in enumerate(timeouts):
            if i and timeouts[i - 1].player == entry.player:
                continue  # the discard right after the draw: the same turn
            waited = entry.at_ms - turn_started
            if entry.player in timed_out:
                assert AUTO_PLAY_MS <= waited < 2_000, (variant, entry.player, waited)
                automatic_turns += 1
            else:
                assert waited >= 2_000, (variant, entry.player, waited)
                timed_out.add(entry.player)
            last = i
            while last + 1 < len(timeouts) and timeouts[last + 1].player == entry.player:
                last += 1
            turn_started = timeouts[last].at_ms  # the next turn starts with the discard
        assert timed_out == {"a", "b"}
        assert automatic_turns >= 2
        assert set(host.view(table_id, "").auto_players) == {"a", "b"}


async def test_rule_46_on_the_host_the_cancel_is_logged_settled_and_replays() -> None:
    """Rule 46 / OQ 24 under the host, with its clock moved on 5 minutes once both players
    are automatic: the next automatic turn cancels the round, the wallet is asked to settle
    it with every fee back (no chips move), and the table rebuilt from its log is the same
    (the cancel is derived from logged timeouts and their timestamps)."""
    bus = InMemoryBus()
    await bus.start()
    log = InMemoryCommandLog()
    now = FakeClock()
    host = TableHost(
        engines=load_engines(),
        command_log=log,
        publisher=bus,
        now_ms=now,
        call_later=now.call_later,
        seeds=Seeds("46"),
        buyins=Buyins(play_currencies=()),  # CHIP settled by the wallet: the request is seen
    )
    await host.start()
    options = {"variant": "rummy51", "players": 2, "round_fee": "30", "chip_ratio": 3}
    table_id = await host.open_table("rummy", options, ClockSettings(turn_ms=100))
    for seat, player in enumerate(PLAYERS[:2]):
        await host.seat(table_id, player, seat, 500)
    await run_clock(now, 100, lambda: set(host.view(table_id, "").auto_players) == set(PLAYERS[:2]))
    more = now.now + 300
    await run_clock(now, 100, lambda: now.now >= more)  # three automatic turns more
    assert rounds_ended(host, table_id) == 0
    now.advance(5 * 60 * 1000)
    await run_clock(now, 100, lambda: rounds_ended(host, table_id) >= 1)
    await host.stop()
    await bus.stop()

    last = host.view(table_id, PLAYERS[0]).view["last_round"]
    assert last["round"] == 1 and last["ending"] == "cancelled" and last["winner"] is None
    assert last["fees"] == {PLAYERS[0]: 30, PLAYERS[1]: 30} and last["pot"] == 60
    (settlement, *_) = settlements(bus, table_id)
    (detail,) = check_settlements([settlement], table_id, 1, PLAYERS[:2])
    assert detail["ending"] == "cancelled" and set(detail["deltas"].values()) == {0}
    entries = await log_entries(log, table_id)
    state = initial_state(ENGINE, entries[0])
    for entry in entries[1:]:
        state = step(ENGINE, state, entry).state
    assert state.digest(ENGINE) == host.digest(table_id)
    cancelling = [e for e in entries if e.kind == "timeout"]
    assert any(e.at_ms >= entries[0].at_ms + 5 * 60 * 1000 for e in cancelling)
