"""Poker bots (`croupier.poker.tools.bots`) on the pure table adapter: rule 59 / §7.

- every action a bot returns is legal (the adapter would raise otherwise), in Hold'em,
  Omaha and Naiko mode, over whole sessions with rebuys;
- in Naiko mode both strengths use every power legally, the Seal included;
- a bot is a function of its own view only: the view it is handed never holds another
  player's hole cards, the same view and seed give the same action, and adding a
  "purchases" field to the view changes nothing (its strength cannot depend on them);
- the rule-based bot is stronger than the random-legal one.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from croupier.game import Act, SeatPlayer, StartHand
from croupier.poker.core import cards as C
from croupier.poker.core.seating import PokerTable
from croupier.poker.engine import ENGINE
from croupier.poker.tools.bots import RandomBot, RuleBot, equity, make_bot, play_in_process

NAIKO = {"variant": "naiko", "blinds": [5, 10]}


@pytest.mark.parametrize(
    "options",
    [
        {"variant": "nlhe", "blinds": [5, 10]},
        {"variant": "plo", "blinds": [5, 10]},
        NAIKO,
    ],
)
def test_rule_59_bots_only_play_legal_actions(options: dict[str, Any]) -> None:
    result = play_in_process(options, ["rule", "random"] * 3, 60, label=str(options))
    assert result["hands"] == 60
    assert sum(result["net"].values()) == 0  # chips only move between seats
    if options["variant"] != "naiko":
        assert result["powers"] == {}


def test_rule_59_naiko_bots_use_every_power_legally() -> None:
    for kinds in (["rule"] * 6, ["random"] * 6):
        result = play_in_process(NAIKO, kinds, 150, label=f"powers/{kinds[0]}")
        assert set(result["powers"]) == {"peek", "swap", "anchor", "seal"}, result["powers"]


def _table(seed: bytes) -> PokerTable:
    state = ENGINE.open(NAIKO)
    for i in range(4):
        state, _ = ENGINE.apply(state, SeatPlayer(f"p{i}", i, 1000, True))
    state, _ = ENGINE.apply(state, StartHand(seed))
    return state


def test_rule_59_a_bot_sees_only_its_own_view_and_ignores_purchases() -> None:
    rng = random.Random(3)
    checked = 0
    for n in range(30):
        state = _table(bytes([n]) * 32)
        bots = {f"p{i}": make_bot("rule" if i % 2 else "random", f"p{i}", rng) for i in range(4)}
        while actors := [t.player for t in ENGINE.turns(state)]:
            player = actors[0]
            view = ENGINE.view(state, player)
            hand = state.hand
            assert hand is not None
            theirs = {
                C.name(c) for i, h in enumerate(hand.hole) if hand.ids[i] != player for c in h
            }
            assert not theirs & set(str(view).replace("'", " ").split())
            bot = bots[player]
            # The same view and the same random state give the same action, and a view
            # that also carried purchase data would give the same action too.
            twin = type(bot)(player, random.Random(n))
            again = type(bot)(player, random.Random(n))
            enriched = copy.deepcopy(view)
            enriched["purchases"] = {player: 10_000, "p0": 99}
            enriched["hand"]["purchases"] = {"chips": 10**6}
            assert twin.decide(view) == again.decide(enriched)
            action = bot.decide(view)
            assert action is not None
            state, _ = ENGINE.apply(state, Act(player, action))
            checked += 1
    assert checked > 100


def test_bots_have_nothing_to_do_out_of_turn() -> None:
    state = _table(b"\x07" * 32)
    to_act = ENGINE.turns(state)[0].player
    for i in range(4):
        player = f"p{i}"
        if player != to_act:
            assert RuleBot(player, random.Random(0)).decide(ENGINE.view(state, player)) is None
            assert RandomBot(player, random.Random(0)).decide(ENGINE.view(state, player)) is None


def test_equity_orders_hands_by_strength() -> None:
    rng = random.Random(1)
    aces = equity(C.parse_all(["As", "Ah"]), (), 1, 400, rng)
    junk = equity(C.parse_all(["7c", "2d"]), (), 1, 400, rng)
    assert aces > 0.75 > 0.4 > junk
    nuts = equity(C.parse_all(["As", "Ks"]), C.parse_all(["Qs", "Js", "Ts"]), 3, 50, rng)
    assert nuts == 1.0


def test_the_rule_bot_is_stronger_than_the_random_bot() -> None:
    result = play_in_process(NAIKO, ["rule", "random"] * 3, 300, label="strength")
    rule = sum(v for p, v in result["net"].items() if p.startswith("rule"))
    assert rule > 0, result["net"]
