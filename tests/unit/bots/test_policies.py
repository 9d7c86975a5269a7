"""Each game's bot policy on the pure engine: fed only its own seat's view (what the host
sends that seat), every action it returns is legal, and bots alone play a game to its end."""

from __future__ import annotations

import hashlib
import random
from typing import Any

from croupier.bots.service.policies import RUMMY_SHAKE_AFTER, buy_in_of, policy_for, stack_for
from croupier.game import Act, SeatPlayer, StartHand
from croupier.joker.engine import ENGINE as JOKER
from tests.support.rummy import TABLES as RUMMY_TABLES

JSON = dict[str, Any]


def seed(label: str, number: int) -> bytes:
    return hashlib.sha256(f"{label}/{number}".encode()).digest()


def play_to_the_end(engine: Any, options: JSON, players: list[str], game: str) -> Any:
    """Bots alone at a table of `engine`, each deciding from its own view, the host's deal
    after each hand, until no hand can start and nobody is waited for."""
    state = engine.open(options)
    for number, player in enumerate(players):
        state, _ = engine.apply(state, SeatPlayer(player, number, stack_for(game, options)))
    policies = {p: policy_for(game, p, random.Random(p), options) for p in players}
    hands = actions = 0
    while True:
        turns = engine.turns(state)
        if not turns:
            if not engine.can_start_hand(state):
                return state, actions
            hands += 1
            state, _ = engine.apply(state, StartHand(seed(game, hands)))
            continue
        player = turns[0].player
        policy = policies[player]
        assert policy is not None
        action = policy.decide(engine.view(state, player))
        assert action is not None, f"{player} had nothing to do on his turn"
        state, _ = engine.apply(state, Act(player, action))  # an illegal one raises
        actions += 1
        assert actions < 20_000, "the game does not end"


def test_joker_bots_play_a_whole_game_with_legal_cards_bids_and_trumps() -> None:
    state, actions = play_to_the_end(JOKER, {}, ["a", "b", "c", "d"], "joker")
    assert JOKER.result(state) is not None and actions > 100


def test_backgammon_bots_play_a_single_game_to_its_end() -> None:
    from croupier.backgammon.engine import ENGINE as BACKGAMMON

    state, actions = play_to_the_end(BACKGAMMON, {"mode": "single"}, ["w", "b"], "backgammon")
    assert BACKGAMMON.result(state) is not None and actions > 10


def test_a_busted_poker_bot_tops_up_a_buy_in() -> None:
    policy = policy_for("poker", "me", random.Random(1), {"big_blind": "10"})
    assert policy is not None
    view = {"table": [{"player": "me", "stack": 0}], "table_actions": ["sit_out", "top_up"]}
    assert policy.decide(view) == {"action": "top_up", "amount": 1000}
    waiting = {"table": [{"player": "me", "stack": 0, "pending_top_up": 1000}]}
    assert policy.decide(waiting) is None


def test_a_bot_buys_in_for_the_most_a_poker_table_takes_else_100_big_blinds() -> None:
    assert buy_in_of({"min_buy_in": "400", "max_buy_in": "2000"}) == 2000
    assert buy_in_of({"blinds": [5, 10]}) == 1000
    assert buy_in_of({"big_blind": "20"}) == 2000
    assert stack_for("joker", {}) == 0


def play_rummy_rounds(variant: str, players: int, rounds: int, label: str) -> int:
    """Rummy bots alone at a table, each deciding from its own view, until `rounds`
    rounds ended (or fewer players than a round needs are left); the rounds ended."""
    from croupier.rummy.engine import ENGINE as RUMMY

    options = {"variant": variant, "players": players, "round_fee": 10, "chip_ratio": 1}
    names = [f"{label}{n}" for n in range(players)]
    state = RUMMY.open(options)
    for number, player in enumerate(names):
        state, _ = RUMMY.apply(state, SeatPlayer(player, number, stack_for("rummy", options)))
    policies = {p: policy_for("rummy", p, random.Random(p), options) for p in names}
    started = actions = 0
    while True:
        turns = RUMMY.turns(state)
        if not turns:
            if started == rounds or not RUMMY.can_start_hand(state):
                return started
            started += 1
            state, _ = RUMMY.apply(state, StartHand(seed(f"{label}-{variant}", started)))
            continue
        policy = policies[turns[0].player]
        assert policy is not None
        action = policy.decide(RUMMY.view(state, turns[0].player))
        assert action is not None, "a rummy bot had nothing to do on its turn"
        state, _ = RUMMY.apply(state, Act(turns[0].player, action))  # an illegal one raises
        actions += 1
        assert actions < 50_000, "the rounds do not end"


def test_rummy_bots_play_rounds_of_every_variant_from_their_own_views() -> None:
    for variant, players in RUMMY_TABLES:  # tests.support.rummy.TABLES
        for label in ("p", "q", "r"):
            assert play_rummy_rounds(variant, players, 4, label) == 4, variant


def test_a_rummy_bot_brings_100_round_fees() -> None:
    assert stack_for("rummy", {"round_fee": "30"}) == 3_000


def test_a_rummy_bot_caught_in_a_cycle_discards_at_random() -> None:
    policy = policy_for("rummy", "me", random.Random(7), {})
    assert policy is not None
    hand = ["2c", "5d", "9h", "Kc", "3s", "7d", "Jh", "4c"]
    view = {
        "variant": "rummy51",
        "round_number": 3,
        "round": {"variant": "rummy51", "phase": "play", "to_act": "me", "hand": hand, "melds": []},
        "legal": {"actions": ["discard"], "hand": hand},
    }
    first = [policy.decide(view) for _ in range(RUMMY_SHAKE_AFTER)]
    assert len({str(action) for action in first}) == 1  # the bot's one choice, every time
    shaken = {policy.decide(view)["card"] for _ in range(30)}  # type: ignore[index]
    assert len(shaken) > 1 and shaken <= set(hand)
    view["round_number"] = 4  # a new round: the bot plays its own game again
    assert policy.decide(view) == first[0]
