"""Poker clocks through the table host (in-memory log, a FakeClock the tests move): §7, §9.4.

- rule 56 / vector 24: on expiry the host checks when that is legal, otherwise folds;
- rule 57: a disconnection neither resets the clock nor undoes an accepted action;
- rule 58: the reconnection window keeps the seat and returns the server-confirmed state;
  past it the player leaves (at the end of the hand he is in);
- OQ 17 / rules 46, 48: during the Seal response window only the target's clock runs (the
  anchoring player's is stopped); its expiry is "no Seal" and the Anchor applies;
- §10.1: a power does not end the turn, so it does not restart the player's clock
  (the turn key of `PokerRules.turns`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from croupier.game import ClockSettings
from croupier.kit.bus.memory import InMemoryBus
from croupier.poker.core.table_options import DEFAULT_SEAL_WINDOW_SECONDS
from croupier.poker.engine import ENGINE
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.service.host import TableHost
from tests.support.table import FakeClock, Seeds, until

PLAYERS = ["ann", "bob", "cat"]


async def started_host(label: str, now: FakeClock) -> tuple[TableHost, InMemoryCommandLog]:
    """A host on `now`'s time: its clocks run out only when the test advances it."""
    bus = InMemoryBus()
    await bus.start()
    log = InMemoryCommandLog()
    host = TableHost(
        engines={"poker": ENGINE},
        command_log=log,
        publisher=bus,
        seeds=Seeds(label),
        now_ms=now,
        call_later=now.call_later,
    )
    await host.start()
    return host, log


async def settle() -> None:
    """Let the host's background work (an expiry just fired) run."""
    await asyncio.sleep(0.05)


async def table(
    host: TableHost, options: dict[str, Any], clock: ClockSettings, players: int = 3
) -> str:
    """The host deals as soon as two players sit: with 3, hand 1 is heads-up."""
    table_id = await host.open_table("poker", options, clock)
    for seat, player in enumerate(PLAYERS[:players]):
        await host.seat(table_id, player, seat, 1000)
    return table_id


def hand(host: TableHost, table_id: str) -> dict[str, Any]:
    result: dict[str, Any] = host.view(table_id, "").view["hand"]
    return result


def seat_of(view_hand: dict[str, Any], player: str) -> dict[str, Any]:
    return next(s for s in view_hand["seats"] if s["player"] == player)


async def test_rule_56_vector_24_expiry_checks_when_legal_and_folds_facing_a_bet() -> None:
    now = FakeClock()
    host, log = await started_host("clock-56", now)
    clock = ClockSettings(turn_ms=1000)
    table_id = await table(host, {"variant": "nlhe", "blinds": [1, 2]}, clock, players=2)
    first = hand(host, table_id)
    assert first["street"] == "preflop"
    small = first["to_act"]  # heads-up: the button's small blind faces the big blind
    now.advance(1000)
    await until(lambda: hand(host, table_id)["to_act"] != small)
    # He folded: the big blind won hand 1 without a showdown, the small blind lost 1.
    record = host.hand_history(table_id, 1)
    assert record["commands"][-1]["kind"] == "timeout"
    assert record["result"]["deltas"] == {small: -1, first["seats"][1]["player"]: 1}
    second = hand(host, table_id)
    assert second["button"] != first["button"]  # one seat on
    small = second["to_act"]
    await host.act(table_id, small, "sb-call", {"action": "call"})
    big = hand(host, table_id)["to_act"]
    assert host.view(table_id, big).view["hand"]["legal"]["call"] == 0
    # The big blind's option: nobody raised, so checking is legal and the clock checks.
    now.advance(1000)
    await until(lambda: hand(host, table_id)["street"] != "preflop")
    after = hand(host, table_id)
    assert after["street"] == "flop" and not seat_of(after, big)["folded"]
    entries = [e async for t in log.replay() for e in t.entries]
    timeouts = [e.player for e in entries if e.kind == "timeout"]
    assert timeouts[:2] == [first["to_act"], big]
    kinds = [e.body.get("action") for e in entries if e.kind == "act"]
    assert kinds[0] == {"action": "call"}
    await host.stop()


async def test_rule_57_disconnection_keeps_the_clock_and_the_accepted_action() -> None:
    now = FakeClock()
    host, _ = await started_host("clock-57", now)
    clock = ClockSettings(turn_ms=3000, reconnect_ms=30_000)
    table_id = await table(host, {"variant": "nlhe", "blinds": [1, 2]}, clock, players=2)
    actor = hand(host, table_id)["to_act"]
    await host.act(table_id, actor, "raise", {"action": "raise", "to": 6})
    waiting = hand(host, table_id)["to_act"]
    assert host.view(table_id, waiting).turn_seconds_left == 3.0
    now.advance(1200)
    await host.disconnect(table_id, waiting)  # the connection drops
    assert host.is_disconnected(table_id, waiting)
    assert host.view(table_id, waiting).turn_seconds_left == 1.8  # not reset by it
    assert seat_of(hand(host, table_id), actor)["bet"] == 6  # the raise stays
    now.advance(1799)
    await settle()
    assert host.view(table_id, "").last_finished_hand == 0
    now.advance(1)  # the original deadline
    await until(lambda: host.view(table_id, "").last_finished_hand == 1)
    result = host.hand_history(table_id, 1)["result"]
    assert result["deltas"] == {actor: 2, waiting: -2}  # he folded to the raise; it stands
    # Rule 58: back within the window: same seat, the server-confirmed view.
    back = await host.reconnect(table_id, waiting)
    assert not host.is_disconnected(table_id, waiting)
    assert waiting in back.seated
    assert back.view == host.view(table_id, waiting).view
    assert back.view["hand_number"] == 2
    await host.stop()


async def test_rule_58_oq_20_past_the_reconnection_window_he_is_played_and_leaves() -> None:
    now = FakeClock()
    host, _ = await started_host("clock-58", now)
    clock = ClockSettings(turn_ms=60_000, reconnect_ms=200)
    table_id = await table(host, {"variant": "nlhe", "blinds": [1, 2]}, clock)
    first = hand(host, table_id)
    assert (
        host.view(table_id, "").view["hand_number"] == 1 and len(first["seats"]) == 2
    )  # cat waits for hand 2
    stay, gone = (
        first["to_act"],
        next(s["player"] for s in first["seats"] if s["player"] != first["to_act"]),
    )
    await host.disconnect(table_id, gone)
    await settle()  # the window's timer is set (in the background) at 0 ms
    now.advance(199)
    await settle()
    assert gone in host.view(table_id, "").seated  # within the window: seat kept
    now.advance(1)
    await until(lambda: gone not in host.view(table_id, "").seated)
    # He is still in hand 1; his turns are played as the clock would (check, else fold).
    assert host.view(table_id, "").view["hand_number"] == 1
    assert any(s["player"] == gone and s["leaving"] for s in host.view(table_id, "").view["table"])
    n = 0
    while host.view(table_id, "").last_finished_hand < 1:
        assert hand(host, table_id)["to_act"] == stay
        legal = host.view(table_id, stay).view["hand"]["legal"]
        await host.act(
            table_id, stay, f"s{n}", {"action": "check" if "check" in legal["actions"] else "call"}
        )
        n += 1
    commands = host.hand_history(table_id, 1)["commands"]
    assert not [c for c in commands if c["player"] == gone and c["kind"] in ("act", "timeout")]
    table_after = host.view(table_id, "").view["table"]
    assert gone not in [s["player"] for s in table_after]
    assert host.view(table_id, "").view["hand_number"] == 2  # stay and cat play on
    await host.stop()


async def naiko_window(host: TableHost, table_id: str) -> tuple[str, str]:
    """Fold hands away until the player to act can anchor a player who can seal; do it."""
    for n in range(60):
        view = host.view(table_id, hand(host, table_id)["to_act"]).view
        h = view["hand"]
        actor = h["to_act"]
        legal = h["legal"]
        ids = [seat["player"] for seat in h["seats"]]
        following = ids[(ids.index(actor) + 1) % len(ids)]  # acts next in this round
        if "seal" in h["carousel"] and following in legal.get("anchor_targets", []):
            await host.act(
                table_id,
                actor,
                "anchor",
                {"action": "power", "power": "anchor", "target": following},
            )
            return actor, following
        kind = "check" if "check" in legal["actions"] else "fold"
        await host.act(table_id, actor, f"a{n}", {"action": kind})
    raise AssertionError("no hand offered an Anchor against a player who can seal")


async def test_oq_17_rules_46_48_seal_window_stops_the_anchoring_clock_and_expiry_is_no_seal() -> (
    None
):
    now = FakeClock()
    host, log = await started_host("clock-seal", now)
    clock = ClockSettings(turn_ms=1500, reconnect_ms=30_000)
    table_id = await table(host, {"variant": "naiko", "blinds": [1, 2]}, clock)
    anchorer, target = await naiko_window(host, table_id)
    h = hand(host, table_id)
    assert h["to_act"] == target
    assert host.view(table_id, target).view["hand"]["legal"]["actions"] == ["seal", "no_seal"]
    window = DEFAULT_SEAL_WINDOW_SECONDS  # §9.4: the window's own clock, not the turn's
    assert host.view(table_id, target).turn_seconds_left == window
    assert host.view(table_id, anchorer).turn_seconds_left == 0.0  # stopped, no deadline
    balance = h["destellos"][target]
    # The target lets the window run out: "no Seal", the Anchor applies (rule 48).
    now.advance(window * 1000)
    await until(lambda: hand(host, table_id)["to_act"] == anchorer)
    entries = [e async for t in log.replay() for e in t.entries]
    assert (entries[-1].kind, entries[-1].player) == ("timeout", target)
    assert host.view(table_id, anchorer).turn_seconds_left == 1.5  # runs again, as he left it
    assert hand(host, table_id)["destellos"][target] == balance  # the target paid nothing
    await host.act(table_id, anchorer, "call", {"action": "call"})
    # The target acts next in this round: he plays pot-limit now (rules 17, 42).
    current = hand(host, table_id)
    assert (current["to_act"], current["street"]) == (target, "preflop")
    legal = host.view(table_id, target).view["hand"]["legal"]
    chips = sum(p["amount"] for p in current["pots"]) + sum(s["bet"] for s in current["seats"])
    top = max(s["bet"] for s in current["seats"])
    me = seat_of(current, target)
    assert legal["max_raise_to"] == min(top + chips + legal["call"], me["stack"] + me["bet"])
    assert legal["max_raise_to"] < me["stack"] + me["bet"]  # below his no-limit all-in
    await host.stop()


async def test_section_10_1_a_power_does_not_restart_the_turn_clock() -> None:
    now = FakeClock()
    host, _ = await started_host("clock-power", now)
    clock = ClockSettings(turn_ms=3000, reconnect_ms=30_000)
    table_id = await table(host, {"variant": "naiko", "blinds": [1, 2]}, clock)
    for n in range(30):
        h = hand(host, table_id)
        actor = h["to_act"]
        legal = host.view(table_id, actor).view["hand"]["legal"]
        if "peek" in legal.get("powers", []):
            break
        await host.act(table_id, actor, f"f{n}", {"action": "fold"})
    else:
        raise AssertionError("no hand offered Sneak Peek")
    now.advance(500)
    await host.act(table_id, actor, "peek", {"action": "power", "power": "peek"})
    after = host.view(table_id, actor)
    assert after.view["hand"]["to_act"] == actor  # the power did not end the turn
    assert after.view["hand"]["private"]["peeked"]
    assert after.turn_seconds_left == 2.5  # the turn's clock, not a fresh 3 s
    await host.stop()


async def test_section_9_4_oq_17_seal_window_has_its_own_clock_and_pauses_the_anchorer() -> None:
    now = FakeClock()
    host, log = await started_host("clock-seal", now)
    clock = ClockSettings(turn_ms=4000, reconnect_ms=30_000)
    options = {"variant": "naiko", "blinds": [1, 2], "seal_window_seconds": 1}
    table_id = await table(host, options, clock)
    try:
        anchorer, target = await naiko_window(host, table_id)
        assert host.view(table_id, target).turn_seconds_left == 1.0  # the 1 s window
        assert host.view(table_id, anchorer).turn_seconds_left == 0.0  # paused
        now.advance(999)
        await settle()
        assert hand(host, table_id)["to_act"] == target
        now.advance(1)  # the window's 1 s, not the 4 s clock
        await until(lambda: hand(host, table_id)["to_act"] == anchorer)
        # Resumed with what he had left (he anchored at once), not a fresh turn.
        assert host.view(table_id, anchorer).turn_seconds_left == 4.0
        entries = [e async for t in log.replay() for e in t.entries]
        assert (entries[-1].kind, entries[-1].player) == ("timeout", target)
    finally:
        await host.stop()
