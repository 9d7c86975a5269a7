"""Each game's bot policy on the pure engine: fed only its own seat's view (what the host
sends that seat), every action it returns is legal, and bots alone play a game to its end."""

from __future__ import annotations

import hashlib
import random
from typing import Any

from croupier.bots.service.policies import buy_in_of, policy_for, stack_for
from croupier.game import Act, SeatPlayer, StartHand
from croupier.joker.engine import ENGINE as JOKER

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


def test_the_bots_do_not_play_rummy_from_a_seat_view_yet() -> None:
    assert policy_for("rummy", "me", random.Random(1), {}) is None
