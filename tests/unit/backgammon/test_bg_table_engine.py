"""The table-host adapter: seats, seeded games, random legal play to the end, settlement."""

from __future__ import annotations

import random
from typing import Any

import pytest

from croupier.backgammon.core.table import BackgammonTable
from croupier.backgammon.engine import ENGINE
from croupier.game import Act, RuleBroken, SeatPlayer, StartHand, UnseatPlayer
from croupier.game.fairness import FairStream
from croupier.game.limits import MAX_AMOUNT, MAX_MATCH_POINTS
from tests.support.refusals import status_name


def seated(options: dict[str, Any]) -> BackgammonTable:
    state = ENGINE.open(options)
    for seat, player in enumerate(("ann", "bob")):
        state, _ = ENGINE.apply(state, SeatPlayer(player, seat))
    return state


def play_out(state: BackgammonTable, rng: random.Random, limit: int = 2000) -> BackgammonTable:
    """Random legal actions (never doubling) until the host could start the next game."""
    for _ in range(limit):
        if ENGINE.result(state) is not None:
            return state
        (player,) = [t.player for t in ENGINE.turns(state)]
        legal = ENGINE.legal_actions(state, player)
        if "move" in legal["actions"]:
            action = {"action": "move", "play": rng.choice(legal["plays"])}
        elif "roll" in legal["actions"]:
            action = {"action": "roll"}
        else:
            action = {"action": legal["actions"][0]}
        state, _ = ENGINE.apply(state, Act(player, action))
    raise AssertionError("the game did not end")


def test_single_games_settle_with_commission() -> None:
    state = seated({"mode": "MODE_SINGLE", "stake": "100", "max_win": "300", "currency": "USD"})
    assert ENGINE.can_start_hand(state)
    rng = random.Random(5)
    for number in range(1, 4):
        state, events = ENGINE.apply(state, StartHand(bytes([number]) * 32))
        assert events[0].type == "game_started"
        state = play_out(state, rng)
        result = ENGINE.result(state)
        assert result is not None and result.hand_number == number
        assert sum(result.deltas.values()) == -sum(result.commission.values())
        assert min(result.deltas.values()) in (-100, -200, -300)
        for player in ("ann", "bob"):
            state, _ = ENGINE.apply(state, Act(player, {"action": "ready"}))
        assert ENGINE.can_start_hand(state)


def test_series_pays_the_stake_once_at_the_end() -> None:
    state = seated({"mode": "MODE_SERIES", "stake": 1000, "points": 3, "currency": "USD"})
    rng = random.Random(9)
    paid = []
    games = 0
    while ENGINE.can_start_hand(state):
        games += 1
        state, _ = ENGINE.apply(state, StartHand(bytes([games]) * 32))
        state = play_out(state, rng)
        result = ENGINE.result(state)
        assert result is not None
        paid.append(dict(result.deltas))
    assert all(d == {"ann": 0, "bob": 0} for d in paid[:-1])
    assert sorted(paid[-1].values()) == [-1000, 1000 - 2 * 65]
    assert ENGINE.view(state, None)["score"]


def test_seeded_dice_cannot_be_chosen_and_history_lists_them() -> None:
    state = seated({"mode": "single", "stake": 100})
    seed = bytes(range(32))
    state, _ = ENGINE.apply(state, StartHand(seed))
    (player,) = [t.player for t in ENGINE.turns(state)]
    play = ENGINE.legal_actions(state, player)["plays"][0]
    state, _ = ENGINE.apply(state, Act(player, {"action": "move", "play": play}))
    (player,) = [t.player for t in ENGINE.turns(state)]
    with pytest.raises(RuleBroken):
        ENGINE.apply(state, Act(player, {"action": "roll", "dice": [6, 6]}))
    stream = FairStream(seed, "dice")
    assert ENGINE.randomness(seed)[:10] == [stream.die() for _ in range(10)]


def test_timeout_loses_the_game() -> None:
    state = seated({"mode": "single", "stake": 100})
    state, _ = ENGINE.apply(state, StartHand(bytes(32)))
    (player,) = [t.player for t in ENGINE.turns(state)]
    state, _ = ENGINE.apply(state, Act(player, ENGINE.timeout_action(state, player), by_clock=True))
    result = ENGINE.result(state)
    assert result is not None
    assert result.deltas[player] == -100
    assert "seed" not in ENGINE.view(state, player)


def test_a_player_cannot_declare_their_own_loss_on_time() -> None:
    """The loss on time is the clock's: the same action from a player is refused."""
    state = seated({"mode": "single", "stake": 100})
    state, _ = ENGINE.apply(state, StartHand(bytes(32)))
    (player,) = [t.player for t in ENGINE.turns(state)]
    with pytest.raises(RuleBroken) as refused:
        ENGINE.apply(state, Act(player, ENGINE.timeout_action(state, player)))
    assert status_name(refused.value) == "invalid_argument"
    assert ENGINE.result(state) is None


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"mode": "single", "stake": 2**70}, "stake"),
        ({"mode": "single", "stake": str(MAX_AMOUNT + 1)}, "stake"),
        ({"mode": "single", "stake": 100, "max_win": 2**63}, "max_win"),
        ({"mode": "series", "stake": 100, "points": 10**9}, "points"),
        ({"mode": "series", "stake": 100, "points": MAX_MATCH_POINTS + 1}, "points"),
    ],
)
def test_amounts_and_match_length_past_their_bounds_are_refused(
    options: dict[str, Any], named: str
) -> None:
    with pytest.raises(RuleBroken) as caught:
        ENGINE.open(options)
    assert status_name(caught.value) == "invalid_argument"
    assert named in caught.value.message and "between" in caught.value.message


def test_amounts_and_match_length_at_their_bounds_are_accepted() -> None:
    ENGINE.open({"mode": "single", "stake": MAX_AMOUNT, "max_win": MAX_AMOUNT})
    ENGINE.open({"mode": "series", "stake": MAX_AMOUNT, "points": MAX_MATCH_POINTS})


def test_p5_the_next_money_game_waits_until_both_players_are_ready() -> None:
    """¶2, ¶5: each single game is an amount agreed anew; the table deals the next one
    only when both players sent `ready` (version 1 dealt it at once)."""
    state = seated({"mode": "single", "stake": 100, "currency": "USD"})
    with pytest.raises(RuleBroken) as caught:  # no game over yet: nothing to be ready for
        ENGINE.apply(state, Act("ann", {"action": "ready"}))
    assert status_name(caught.value) == "failed_precondition"
    state, _ = ENGINE.apply(state, StartHand(b"r" * 32))
    state = play_out(state, random.Random(3))
    assert ENGINE.result(state) is not None and not ENGINE.can_start_hand(state)
    assert [t.player for t in ENGINE.turns(state)] == []  # no clock runs while the table waits
    assert [ENGINE.view(state, p)["legal"]["actions"] for p in ("ann", "bob")] == [["ready"]] * 2

    result = ENGINE.result(state)
    assert result is not None
    lost = max(0, -result.deltas["bob"])  # rule 2: his ready brings back what he lost
    state, events = ENGINE.apply(state, Act("bob", {"action": "ready"}))
    ready = {"player": "bob", "buy_in": lost} if lost else {"player": "bob"}
    assert [(e.type, e.data) for e in events] == [("player_ready", ready)]
    assert not ENGINE.can_start_hand(state)
    assert ENGINE.view(state, None)["ready"] == ["bob"]
    assert ENGINE.legal_actions(state, "bob") == {"actions": []}
    with pytest.raises(RuleBroken) as caught:
        ENGINE.apply(state, Act("bob", {"action": "ready"}))
    assert status_name(caught.value) == "failed_precondition"

    state, _ = ENGINE.apply(state, Act("ann", {"action": "ready"}))
    assert ENGINE.can_start_hand(state)
    state, _ = ENGINE.apply(state, StartHand(b"s" * 32))
    assert ENGINE.view(state, None)["game"] == 2 and "ready" not in ENGINE.view(state, None)
    assert state.ready == frozenset()


def test_p4_series_games_follow_each_other_without_ready() -> None:
    state = seated({"mode": "series", "stake": 100, "points": 5})
    state, _ = ENGINE.apply(state, StartHand(b"q" * 32))
    state = play_out(state, random.Random(4))
    assert ENGINE.can_start_hand(state)
    with pytest.raises(RuleBroken) as caught:
        ENGINE.apply(state, Act("ann", {"action": "ready"}))
    assert status_name(caught.value) == "failed_precondition"


def test_p5_a_player_not_ready_may_leave_between_money_games() -> None:
    state = seated({"mode": "single", "stake": 100})
    state, _ = ENGINE.apply(state, StartHand(b"l" * 32))
    state = play_out(state, random.Random(6))
    state, _ = ENGINE.apply(state, Act("ann", {"action": "ready"}))
    state, events = ENGINE.apply(state, UnseatPlayer("bob"))  # no evaluation: nothing at stake
    assert [e.type for e in events] == ["player_left"] and state.ready == frozenset()
    state, _ = ENGINE.apply(state, SeatPlayer("cy", 1))
    assert ENGINE.can_start_hand(state)  # a new opponent sits down to play
