"""The table-host engine (`croupier.poker.engine`): seats, hands, views, results."""

from __future__ import annotations

import hashlib
import itertools
import random
from typing import Any

import pytest

from croupier.game import Act, GameRules, RuleBroken, SeatPlayer, StartHand, UnseatPlayer
from croupier.poker.codec import action_from_message, view_message
from croupier.poker.core.seating import TABLE_ACTIONS, PokerTable
from croupier.poker.engine import ENGINE
from croupier.poker.v1 import poker_pb2
from tests.support.refusals import status_name

_: GameRules[PokerTable] = ENGINE  # the adapter satisfies the host's protocol


def seed(n: int) -> bytes:
    return hashlib.sha256(f"poker-table-{n}".encode()).digest()


def seated(options: dict[str, Any], stacks: dict[str, int]) -> PokerTable:
    state = ENGINE.open(options)
    for i, (player, stack) in enumerate(stacks.items()):
        state, _ = ENGINE.apply(state, SeatPlayer(player, i * 2, stack))
    return state


def play_hand(state: PokerTable, rng: random.Random) -> PokerTable:
    while actors := [t.player for t in ENGINE.turns(state)]:
        player = actors[0]
        legal = ENGINE.legal_actions(state, player)
        kind = rng.choice([a for a in legal["actions"] if a not in ("power", *TABLE_ACTIONS)])
        action: dict[str, Any] = {"action": kind}
        if kind in ("bet", "raise"):
            action["to"] = rng.randint(legal["min_raise_to"], legal["max_raise_to"])
        if rng.random() < 0.1:
            action = ENGINE.timeout_action(state, player)
        state, _ = ENGINE.apply(state, Act(player, action))
    return state


def test_hands_settle_exact_deltas_and_the_button_moves() -> None:
    stacks = {"ann": 200, "bob": 150, "cat": 300, "dan": 80}
    state = seated({"variant": "nlhe", "blinds": [1, 2]}, stacks)
    rng = random.Random(5)
    buttons = []
    for n in range(12):
        if not ENGINE.can_start_hand(state):
            break
        before = {p: st for _, p, st in state.seats}
        state, events = ENGINE.apply(state, StartHand(seed(n)))
        assert events[0].type == "hand_started"
        buttons.append(events[0].data["button"])
        state = play_hand(state, rng)
        result = ENGINE.result(state)
        assert result is not None and result.hand_number == n + 1
        assert sum(result.deltas.values()) == 0
        for _, p, st in state.seats:
            assert st == before[p] + result.deltas.get(p, 0)
    assert sum(st for _, _, st in state.seats) == sum(stacks.values())
    assert buttons[0] == "ann"  # the first hand's button: the first seat
    assert all(a != b for a, b in itertools.pairwise(buttons))  # OQ 22: it moves


def test_views_hide_other_hole_cards() -> None:
    state = seated(
        {"variant": "plo", "small_blind": "5", "big_blind": "10"},
        {"ann": 500, "bob": 500, "cat": 500},
    )
    state, _ = ENGINE.apply(state, StartHand(seed(1)))
    mine = ENGINE.view(state, "ann")["hand"]["seats"]
    assert [len(s.get("hole_cards", [])) for s in mine] == [4, 0, 0]
    assert all("hole_cards" not in s for s in ENGINE.view(state, None)["hand"]["seats"])
    message = view_message(ENGINE.view(state, "ann"))
    assert [len(s.hole_cards) for s in message.seats] == [4, 0, 0]
    assert message.street == poker_pb2.STREET_PREFLOP


def test_illegal_actions_are_rejected_and_change_nothing() -> None:
    state = seated({"variant": "nlhe"}, {"ann": 100, "bob": 100, "cat": 100})
    state, _ = ENGINE.apply(state, StartHand(seed(2)))
    actor = ENGINE.turns(state)[0].player
    snapshot = ENGINE.snapshot(state)
    with pytest.raises(RuleBroken) as exc:
        ENGINE.apply(state, Act(actor, {"action": "raise", "to": 3}))
    assert status_name(exc.value) == "failed_precondition"
    assert ENGINE.snapshot(state) == snapshot
    with pytest.raises(RuleBroken):
        ENGINE.apply(state, Act(actor, {"action": "dance"}))


def test_options_are_validated() -> None:
    with pytest.raises(RuleBroken):
        ENGINE.open({"variant": "stud"})
    with pytest.raises(RuleBroken):
        ENGINE.open({"variant": "nlhe", "colour": "red"})
    state = ENGINE.open(
        {
            "variant": "VARIANT_NAIKO",
            "small_blind": "1",
            "big_blind": "2",
            "limit": "LIMIT_UNSPECIFIED",
            "decision_seconds": 20,
        }
    )
    assert state.options.config.variant == "naiko"


def test_leaving_during_a_hand_takes_effect_after_it() -> None:
    state = seated({"variant": "nlhe"}, {"ann": 100, "bob": 100, "cat": 100})
    state, _ = ENGINE.apply(state, StartHand(seed(3)))
    state, events = ENGINE.apply(state, UnseatPlayer("bob"))
    assert events[0].type == "player_leaving"
    state = play_hand(state, random.Random(1))
    assert [p for _, p, _ in state.seats] == ["ann", "cat"]


def test_naiko_destellos_are_kept_between_hands() -> None:
    state = seated({"variant": "naiko"}, {"ann": 100, "bob": 100})
    for n in range(4):
        state, _ = ENGINE.apply(state, StartHand(seed(10 + n)))
        while actors := [t.player for t in ENGINE.turns(state)]:
            state, _ = ENGINE.apply(state, Act(actors[0], {"action": "fold"}))
    assert dict(state.destellos) == {"ann": 3, "bob": 3}


def test_protobuf_actions() -> None:
    raise_msg = poker_pb2.Action(kind=poker_pb2.ACTION_KIND_RAISE, to=6)
    assert action_from_message(raise_msg) == {"action": "raise", "to": 6}
    anchor = poker_pb2.Action(
        kind=poker_pb2.ACTION_KIND_POWER, power=poker_pb2.POWER_ANCHOR, target="bob"
    )
    assert action_from_message(anchor) == {"action": "power", "power": "anchor", "target": "bob"}
    with pytest.raises(RuleBroken):
        action_from_message(poker_pb2.Action())


def test_naiko_view_message_carries_private_peek_and_result() -> None:
    state = seated({"variant": "naiko"}, {"ann": 100, "bob": 100, "cat": 100})
    for n in range(20):  # find a hand whose Carousel has Sneak Peek
        state, _ = ENGINE.apply(state, StartHand(seed(100 + n)))
        actor = ENGINE.turns(state)[0].player
        if "peek" in ENGINE.legal_actions(state, actor).get("powers", []):
            break
        while actors := [t.player for t in ENGINE.turns(state)]:
            state, _ = ENGINE.apply(state, Act(actors[0], {"action": "fold"}))
    state, events = ENGINE.apply(state, Act(actor, {"action": "power", "power": "peek"}))
    assert events[0].data == {"player": actor, "power": "peek"}  # public: no card
    mine = view_message(ENGINE.view(state, actor))
    assert mine.peeked.code and poker_pb2.POWER_PEEK in mine.carousel
    others = [p for p in ("ann", "bob", "cat") if p != actor]
    assert not view_message(ENGINE.view(state, others[0])).peeked.code
    while actors := [t.player for t in ENGINE.turns(state)]:
        state, _ = ENGINE.apply(state, Act(actors[0], ENGINE.timeout_action(state, actors[0])))
    done = view_message(ENGINE.view(state, None))
    assert sum(done.result.deltas.values()) == 0 and done.result.pots
