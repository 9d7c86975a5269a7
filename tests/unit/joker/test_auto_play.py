"""Joker tables under the host's clock: auto-play on timeouts, the dealer rule.

- Nobody acts and a whole hand (two, in fact) completes by clock expiries alone; every
  expiry played exactly what the engine's timeout rule says (hand.py: trump phase → no
  trump; bidding → the lowest legal bid, so never the dealer's forbidden one; play → the
  lowest legal plain card, non-trumps first; a joker only when nothing else is legal,
  `under` when following and `take` + clubs when leading) — checked against the
  auto-play rule written again here, from each player's own view.
- The dealer rule holds for an auto-bid when the others' bids add up to n (OQ 14: an
  auto-played hand counts like any other).
- A disconnected player (seat kept, timed out like everyone, `Reconnect`): the host's
  contract for every game, tests/unit/table/contract/test_presence_contract.py.
"""

from __future__ import annotations

import asyncio
from typing import Any

from croupier.game import ClockSettings
from croupier.joker.engine import ENGINE
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.core.history import initial_state
from croupier.table.core.table_state import step
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from tests.support.games import GAMES
from tests.support.table import FakeClock, Seeds, logged_entries, until

PLAYERS = list(GAMES["joker"].players)

RANKS = "6789TJQKA"
SUITS = "cdhs"


def expected_auto_action(view: dict[str, Any]) -> dict[str, Any]:
    """The timeout rule, from the player's own view (written independently of hand.py)."""
    hand, legal = view["hand"], view["legal"]
    (kind,) = legal["actions"]
    if kind == "trump":
        return {"action": "trump", "suit": "none"}
    if kind == "bid":
        return {"action": "bid", "tricks": min(legal["tricks"])}
    plain = [c for c in legal["cards"] if not c.startswith("X")]
    if plain:

        def order(code: str) -> tuple[bool, int, int]:
            return (code[1] == hand["trump"], RANKS.index(code[0]), SUITS.index(code[1]))

        return {"action": "play", "card": min(plain, key=order)}
    if hand["trick"]:
        return {"action": "play", "card": legal["cards"][0], "joker": "under"}
    return {"action": "play", "card": legal["cards"][0], "joker": "take", "suit": "c"}


def applied_action(events: list[Any], player: str) -> dict[str, Any]:
    """The action a step applied, read back from its public events."""
    for event in events:
        data = dict(event.data)
        if event.type in ("bid_made", "card_played", "trump_declared"):
            assert data.pop("player") == player
            kind = {"bid_made": "bid", "card_played": "play", "trump_declared": "trump"}
            return {"action": kind[event.type], **data}
    raise AssertionError(f"no action event in {events}")


async def test_oq_14_hands_complete_by_timeouts_alone_with_the_engines_auto_play() -> None:
    bus = InMemoryBus()
    await bus.start()
    log = InMemoryCommandLog()
    # Seeds "auto-0" deal hands where a joker is auto-played both led and following.
    host = TableHost(engines=load_engines(), command_log=log, publisher=bus, seeds=Seeds("auto-0"))
    await host.start()
    table_id = await host.open_table("joker", {}, ClockSettings(turn_ms=30))
    for seat, player in enumerate(PLAYERS):
        await host.seat(table_id, player, seat, 0)
    await until(lambda: host.view(table_id, "").view["hand"]["number"] >= 2, seconds=30)
    await host.stop()

    entries = await logged_entries(log)
    assert {e.kind for e in entries} == {"open", "seat", "start_hand", "timeout"}
    state = initial_state(ENGINE, entries[0])
    checked: dict[int, list[dict[str, Any]]] = {}  # hand (0-based) → its auto-actions
    scored = []
    for entry in entries[1:]:
        before = state
        outcome = step(ENGINE, state, entry)
        state = outcome.state
        scored += [e.data["hand"] for e in outcome.events if e.type == "hand_scored"]
        if entry.kind != "timeout":
            continue
        view = ENGINE.view(before.engine_state, entry.player)
        assert [t.player for t in ENGINE.turns(before.engine_state)] == [entry.player]
        expected = expected_auto_action(view)
        assert applied_action(outcome.events, entry.player) == expected
        if expected["action"] == "bid" and entry.player == view["hand"]["dealer"]:
            bids = ENGINE.view(state.engine_state, None)["hand"]["bids"]
            assert sum(bids.values()) != view["hand"]["cards"]  # BG 5: never adds up to n
        checked.setdefault(view["hand"]["number"], []).append(expected)
    # Hands 1 (1 card) and 2 (2 cards) were bid, played and scored by timeouts alone
    # (hand 3 may have begun before the host stopped).
    assert scored[:2] == [0, 1]
    assert [len(checked[0]), len(checked[1])] == [4 + 4 * 1, 4 + 4 * 2]
    # Both joker cases came up: led (take + clubs) and following (under).
    jokers = {a["joker"] for hand in (0, 1) for a in checked[hand] if "joker" in a}
    assert jokers == {"take", "under"}


async def test_bg_5_an_auto_bid_never_breaks_the_dealer_rule() -> None:
    bus = InMemoryBus()
    await bus.start()
    log = InMemoryCommandLog()
    now = FakeClock()  # the three bids must come before the 1 s clock: time moves when told
    host = TableHost(
        engines=load_engines(),
        command_log=log,
        publisher=bus,
        seeds=Seeds("dealer"),
        now_ms=now,
        call_later=now.call_later,
    )
    await host.start()
    table_id = await host.open_table("joker", {}, ClockSettings(turn_ms=1_000))
    for seat, player in enumerate(PLAYERS):
        await host.seat(table_id, player, seat, 0)
    hand = host.view(table_id, "").view["hand"]
    dealer, cards = hand["dealer"], hand["cards"]
    # The three others bid first: together exactly n, so the dealer may not pass.
    for n, tricks in enumerate([cards, 0, 0]):
        to_act = host.view(table_id, "").view["hand"]["to_act"]
        assert to_act != dealer
        await host.act(table_id, to_act, f"bid{n}", {"action": "bid", "tricks": tricks})
    now.advance(999)
    await asyncio.sleep(0.05)
    assert dealer not in host.view(table_id, "").view["hand"]["bids"]
    now.advance(1)
    await until(lambda: dealer in host.view(table_id, "").view["hand"]["bids"])
    await host.stop()
    bids = host.view(table_id, "").view["hand"]["bids"]
    assert bids[dealer] == 1  # 0 would make the bids add up to n; 1 is the lowest legal
    assert sum(bids.values()) != cards
    dealer_entries = [e for e in await logged_entries(log) if e.player == dealer]
    assert [e.kind for e in dealer_entries] == ["seat", "timeout"]
