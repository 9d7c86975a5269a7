"""Rule 2 (real money needs a funded account): what a real-money table's seats hold.

Sitting down brings the cover (the most a game can cost, rule 5 with rules 18 and 38 and
OQ 13/16); a result moves the stacks by its deltas; a short stack's `ready` brings the
difference and no game is dealt while a seat is short; a player leaves with his stack.
The table host buys in what the events' `buy_in` says and gives back `player_left`'s
`stack` (`croupier.table.service.money`).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from croupier.backgammon.core import game
from croupier.backgammon.core.board import position_id
from croupier.backgammon.core.matchid import match_id
from croupier.backgammon.core.table import BackgammonTable, stake_cover
from croupier.backgammon.engine import ENGINE
from croupier.game import Act, Event, RuleBroken, SeatPlayer, StartHand, UnseatPlayer
from tests.support.refusals import status_name
from tests.unit.backgammon.test_bg_table_engine import play_out

USD = {"mode": "single", "stake": 10, "max_win": 640, "currency": "USD"}


def seated(options: dict[str, Any]) -> tuple[BackgammonTable, list[Event]]:
    state, events = ENGINE.open(options), list[Event]()
    for seat, player in enumerate(("ann", "bob")):
        state, seat_events = ENGINE.apply(state, SeatPlayer(player, seat))
        events += seat_events
    return state, events


def played(options: dict[str, Any], seed: int) -> BackgammonTable:
    state, _ = seated(options)
    state, _ = ENGINE.apply(state, StartHand(bytes([seed]) * 32))
    return play_out(state, random.Random(seed))


@pytest.mark.parametrize(
    ("options", "cover"),
    [
        (USD, 640),  # rule 5: the agreed maximum caps every loss (OQ 13)
        ({**USD, "max_win": None}, 10 * 64 * 3),  # OQ 16: cube 64 (rule 18) x backgammon (38)
        ({**USD, "max_win": 1_000_000}, 10 * 64 * 3),  # a maximum past the reach of the cube
        ({"mode": "series", "stake": 2_000, "points": 3, "currency": "USD"}, 2_000),  # OQ 4
        ({**USD, "currency": "CHIP"}, 0),  # play chips: no account to fund
        ({**USD, "stake": 0}, 0),  # a free game
    ],
)
def test_rule_5_the_cover_is_the_most_a_game_can_cost(options: dict[str, Any], cover: int) -> None:
    assert stake_cover(ENGINE.open(options)) == cover


def test_rule_2_sitting_down_at_a_money_table_brings_the_cover() -> None:
    state, events = seated(USD)
    assert [e.data for e in events] == [
        {"player": "ann", "buy_in": 640},
        {"player": "bob", "buy_in": 640},
    ]
    assert ENGINE.stacks(state) == {"ann": 640, "bob": 640}
    assert ENGINE.can_start_hand(state)
    _, chips = seated({**USD, "currency": "CHIP"})
    assert [e.data for e in chips] == [{"player": "ann"}, {"player": "bob"}]  # nothing to buy


def test_rule_2_a_seat_brings_no_stack_of_its_own() -> None:
    with pytest.raises(RuleBroken) as caught:
        ENGINE.apply(ENGINE.open(USD), SeatPlayer("ann", 0, stack=500))
    assert status_name(caught.value) == "invalid_argument"


def test_rule_2_the_loser_tops_his_cover_up_with_ready() -> None:
    state = played(USD, 3)
    result = ENGINE.result(state)
    assert result is not None
    stacks = ENGINE.stacks(state)
    assert stacks == {p: 640 + result.deltas[p] for p in ("ann", "bob")}  # moved by the result
    loser = min(result.deltas, key=lambda p: result.deltas[p])
    winner = "bob" if loser == "ann" else "ann"
    state, events = ENGINE.apply(state, Act(winner, {"action": "ready"}))
    assert events[0].data == {"player": winner}  # his stack covers the next game
    state, events = ENGINE.apply(state, Act(loser, {"action": "ready"}))
    assert events[0].data == {"player": loser, "buy_in": -result.deltas[loser]}
    assert ENGINE.stacks(state)[loser] == 640 and ENGINE.can_start_hand(state)


def test_rule_2_a_player_leaves_with_his_stack_and_a_short_seat_waits_for_its_ready() -> None:
    state = played(USD, 3)
    result = ENGINE.result(state)
    assert result is not None
    loser = min(result.deltas, key=lambda p: result.deltas[p])
    winner = "bob" if loser == "ann" else "ann"
    state, events = ENGINE.apply(state, UnseatPlayer(winner))
    assert events == [
        Event("player_left", {"player": winner, "stack": 640 + result.deltas[winner]})
    ]
    assert ENGINE.stacks(state) == {loser: 640 + result.deltas[loser]}
    state, _ = ENGINE.apply(state, SeatPlayer("cat", 1))
    assert not ENGINE.can_start_hand(state)  # the loser's seat is short: nothing is dealt
    assert ENGINE.view(state, loser)["legal"] == {"actions": ["ready"]}
    state, events = ENGINE.apply(state, Act(loser, {"action": "ready"}))
    assert events[0].data == {"player": loser, "buy_in": -result.deltas[loser]}
    assert ENGINE.can_start_hand(state)


def test_rule_12_the_leaver_of_a_running_game_takes_his_stack_after_the_settlement() -> None:
    state, _ = seated(USD)
    state, _ = ENGINE.apply(state, StartHand(b"x" * 32))
    g = state.game
    assert g is not None
    evaluation = {
        "player": "bob",
        "position_id": position_id(g.board),
        "match_id": match_id(game.match_key(g)),
        "equity": "0.5",  # bob, who stays, is ahead by half a point: 5 cents pass
    }
    state, events = ENGINE.apply(state, UnseatPlayer("ann", evaluation=evaluation))
    assert events[-1].data == {"player": "ann", "stack": 635}
    fee = 5  # rule 41: a flat 3 cents each below $0.50, never more than passes (OQ 3)
    assert ENGINE.stacks(state) == {"bob": 640 + 5 - fee}
