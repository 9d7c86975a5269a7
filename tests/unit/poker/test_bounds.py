"""Bounds of what a poker table accepts (`croupier.game.limits`): every amount, count and
duration in the options, a seat's stack and a top-up (the stack it makes too) is refused
with INVALID_ARGUMENT naming the field and its bound, the state unchanged, so that no
value can overflow a protobuf int64 view later. Pure: `PokerEngine` without the host."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from croupier.game import Act, RuleBroken, SeatPlayer, StartHand
from croupier.game.limits import MAX_AMOUNT, MAX_CLOCK_SECONDS
from croupier.poker.codec import view_message
from croupier.poker.core.seating import PokerTable
from croupier.poker.engine import ENGINE
from tests.support.refusals import status_name

INT64_MAX = 2**63 - 1


def refused(call: Any, *args: Any) -> str:
    with pytest.raises(RuleBroken) as caught:
        call(*args)
    assert status_name(caught.value) == "invalid_argument"
    return caught.value.message


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"big_blind": 10**500}, "options.big_blind must be between 0 and 10"),
        ({"blinds": [1, "9" * 500]}, "options.blinds[1] must be between 0 and 10"),
        ({"small_blind": str(INT64_MAX)}, "options.small_blind must be between 0 and 10"),
        ({"ante": MAX_AMOUNT + 1}, "options.ante must be between 0 and 10"),
        ({"max_buy_in": INT64_MAX}, "options.max_buy_in must be between 0 and 10"),
        ({"min_buy_in": -1}, "options.min_buy_in must be between 0 and 10"),
        ({"seats": 10**30}, "options.seats must be between 2 and 9"),
        ({"seal_window_seconds": MAX_CLOCK_SECONDS + 1}, "options.seal_window_seconds must be"),
        ({"decision_seconds": 10**12}, "options.decision_seconds must be between 0 and 86400"),
        ({"reconnect_seconds": "x" * 500}, "options.reconnect_seconds must be a whole number"),
    ],
)
def test_options_out_of_bounds_are_invalid_arguments(options: dict[str, Any], message: str) -> None:
    text = refused(ENGINE.open, options)
    assert text.startswith(message)
    assert len(text) < 200  # the echoed value is cut


def test_options_at_the_bounds_open() -> None:
    state = ENGINE.open(
        {"blinds": [MAX_AMOUNT, MAX_AMOUNT], "max_buy_in": str(MAX_AMOUNT), "seats": "9"}
    )
    assert state.options.config.big_blind == MAX_AMOUNT and state.options.seats == 9


def seated(stack: int = 500) -> PokerTable:
    state = ENGINE.open({"variant": "nlhe", "blinds": [1, 2]})
    for number, player in enumerate(("ann", "bob", "cat")):
        state, _ = ENGINE.apply(state, SeatPlayer(player, number, stack))
    return state


def test_a_stack_above_the_bound_is_refused() -> None:
    state = seated()
    text = refused(ENGINE.apply, state, SeatPlayer("dan", 3, INT64_MAX))
    assert text == f"stack must be between 0 and {MAX_AMOUNT}, got {INT64_MAX}"
    state, _ = ENGINE.apply(state, SeatPlayer("dan", 3, MAX_AMOUNT))
    assert state.chips("dan") == MAX_AMOUNT


def test_a_top_up_past_the_bound_is_refused_and_the_table_plays_on() -> None:
    """The issue's case: a 500-chip stack topped up by 2^63 - 1 was accepted, and every
    view after the next action failed to encode (int64 overflow)."""
    state = ENGINE.apply(seated(), StartHand(hashlib.sha256(b"bounds").digest()))[0]
    before = ENGINE.snapshot(state)
    for player in ("ann", "bob"):  # in the running hand (pending) or not: same bound
        text = refused(ENGINE.apply, state, Act(player, {"action": "top_up", "amount": INT64_MAX}))
        assert text.startswith("the stack after the top-up must be between 0 and")
    assert ENGINE.snapshot(state) == before
    room = MAX_AMOUNT - 500
    refused(ENGINE.apply, state, Act("ann", {"action": "top_up", "amount": room + 1}))
    state, _ = ENGINE.apply(state, Act("ann", {"action": "top_up", "amount": room}))
    while actors := [t.player for t in ENGINE.turns(state)]:
        state, _ = ENGINE.apply(state, Act(actors[0], {"action": "fold"}))
    for player in ("ann", "bob", "cat", ""):
        view_message(ENGINE.view(state, player) if player else ENGINE.view(state, None))


def test_a_raise_beyond_any_stack_echoes_a_cut_amount() -> None:
    state = ENGINE.apply(seated(), StartHand(hashlib.sha256(b"bounds").digest()))[0]
    actor = ENGINE.turns(state)[0].player
    with pytest.raises(RuleBroken) as caught:
        ENGINE.apply(state, Act(actor, {"action": "raise", "to": 10**500}))
    assert status_name(caught.value) == "failed_precondition"
    assert "is more than the stack allows: at most 500" in caught.value.message
    assert len(caught.value.message) < 200
