"""Whole rounds dealt from seeds and played by the simple bots, through the adapter-facing
`croupier.rummy.core.table` functions: every round ends, chips are conserved (seed 000 rule 23),
views hide other hands, and the auto-player (rule 45) can finish a round on its own."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from croupier.rummy.core import gin, oklahoma_gin, rummy, rummy40, rummy51, rummy500, table
from croupier.rummy.core.cards import card_names, standard_deck
from croupier.rummy.core.knock_game import GinState
from croupier.rummy.core.variant import VariantRules
from croupier.rummy.tools.bots import gin_bot_action, laydown_bot_action

LAYDOWN = [rummy.RULES, rummy51.RULES, rummy40.RULES, rummy500.RULES]


def _seed(*parts: object) -> bytes:
    return hashlib.sha256(repr(parts).encode()).digest()


def _check_cards_conserved(state: table.RoundState) -> None:
    """Every card of the deck is in exactly one place: a hand, the stock, the pile, a meld."""
    rules = state.rules
    seen = Counter(state.stock) + Counter(state.discard_pile)
    for hand in state.hands:
        seen += Counter(hand)
    for meld in state.table_melds:
        seen += Counter(meld.cards)
    assert seen == Counter(standard_deck(rules.decks, rules.jokers))


def _play(state: table.RoundState, limit: int = 4000) -> table.RoundState:
    for _ in range(limit):
        if state.result is not None:
            return state
        player = state.to_act
        assert player is not None
        is_gin = isinstance(state, GinState)
        action = gin_bot_action(state) if is_gin else laydown_bot_action(state)  # type: ignore[arg-type]
        state, events = table.apply(state, player, action)
        for event in events:
            assert event.type
        _check_cards_conserved(state)
    raise AssertionError("the round did not end")


def test_deal_from_seed_is_deterministic() -> None:
    seed = bytes(range(32))
    assert table.start(gin.RULES, ["a", "b"], "b", seed) == table.start(
        gin.RULES, ["a", "b"], "b", seed
    )
    state = table.start(rummy51.RULES, ["a", "b", "c"], "c", seed)
    counts = [len(hand) for hand in state.hands]
    assert counts == [14, 14, 14]
    assert len(state.stock) == 108 - 42 - 1


@pytest.mark.parametrize("rules", LAYDOWN, ids=lambda r: r.name)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_bots_finish_rummy_family_rounds_and_chips_are_conserved(
    rules: VariantRules, players: int
) -> None:
    names = [f"p{index}" for index in range(players)]
    for round_no in range(4):
        state = _play(table.start(rules, names, names[-1], _seed(rules.name, players, round_no)))
        assert state.result is not None
        settlement = table.settle_round(
            state, round_fee=30, chip_ratio=3, chips={name: 500 for name in names}
        )
        assert settlement is not None
        assert sum(settlement.deltas.values()) == 0
        if state.result.winner is not None:
            assert settlement.chips_won == settlement.pot + sum(settlement.chips_paid.values())
            assert state.result.deadwood[state.result.winner] == 0


@pytest.mark.parametrize("rules", [gin.RULES, oklahoma_gin.RULES], ids=lambda r: r.name)
def test_bots_finish_gin_rounds(rules: VariantRules) -> None:
    for round_no in range(6):
        state = _play(table.start(rules, ["a", "b"], "b", _seed(rules.name, round_no)))
        assert state.result is not None
        assert state.result.ending.value in {"gin", "knock", "undercut", "draw"}


@pytest.mark.parametrize("rules", [gin.RULES, *LAYDOWN], ids=lambda r: r.name)
def test_auto_player_alone_finishes_a_round(rules: VariantRules) -> None:
    """Rule 45: with every seat on the auto-player the round goes on and nobody melds. Gin
    and Rummy 500 end when the stock runs out; Rummy 51/40 turn the discard pile over and
    are still running after 400 turns (at a table, rule 46 cancels such a round: its tests
    are test_rule_46_* in test_rounds_and_stacks.py and test_auto_player.py)."""
    state = table.start(rules, ["a", "b"], "b", _seed("auto", rules.name))
    for _ in range(400):
        if state.result is not None:
            break
        player = state.to_act
        assert player is not None
        state, _ = table.apply(state, player, table.timeout_action(state, player))
    assert not state.table_melds
    if rules.family.value == "knock" or not rules.reuse_discards:
        assert state.result is not None
        assert state.result.winner is None  # nobody melds, so nobody can win
    else:
        assert state.result is None


@pytest.mark.parametrize("rules", [gin.RULES, rummy51.RULES], ids=lambda r: r.name)
def test_view_holds_own_hand_and_counts_only(rules: VariantRules) -> None:
    state = table.start(rules, ["a", "b", "c"][: rules.max_players], "a", _seed("view"))
    players = list(state.players)
    for viewer in players:
        seen = table.view(state, viewer)
        own = state.hands[players.index(viewer)]
        assert sorted(seen["hand"]) == sorted(card_names(own))
        assert set(seen) >= {"hand", "discard_pile", "melds", "card_counts"}
        others = [
            c
            for i, hand in enumerate(state.hands)
            if players[i] != viewer
            for c in card_names(hand)
            if c not in card_names(own)
        ]
        stock_only = [c for c in card_names(state.stock) if c not in card_names(own)]
        for card in others + stock_only:
            if card not in seen["discard_pile"]:
                assert f"'{card}'" not in repr(seen)
