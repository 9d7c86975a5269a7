"""A tournament hand's table (`hand_players`, issue 25): the tournament director opens one
poker table per hand and seats its players one by one; the table deals no hand before all
of them are seated, then deals them all in (the first hand at a fresh table: the lowest
seat has the button), and the hand's result carries every player's stack at its end."""

from __future__ import annotations

import hashlib

import pytest

from croupier.game import Act, Malformed, SeatPlayer, StartHand
from croupier.poker.core.seating import PokerTable
from croupier.poker.engine import ENGINE


def _seat(state: PokerTable, player: str, number: int, stack: int) -> PokerTable:
    state, _ = ENGINE.apply(state, SeatPlayer(player, number, stack))
    return state


def test_a_hand_table_deals_only_once_every_player_is_seated() -> None:
    state = ENGINE.open({"variant": "nlhe", "blinds": [10, 20], "seats": 4, "hand_players": 4})
    for number, player in enumerate("abc"):
        state = _seat(state, player, number, 1_000)
        assert not ENGINE.can_start_hand(state)
    state = _seat(state, "d", 3, 1_000)
    assert ENGINE.can_start_hand(state)
    state, _ = ENGINE.apply(state, StartHand(hashlib.sha256(b"hand").digest()))
    hand = state.hand
    assert hand is not None
    assert list(hand.ids) == ["a", "b", "c", "d"]  # nobody waits for the big blind
    assert (hand.ids[hand.button], hand.ids[hand.sb_seat], hand.ids[hand.bb_seat]) == (
        "a",
        "b",
        "c",
    )


def test_the_hand_result_carries_the_stacks_at_its_end() -> None:
    state = ENGINE.open({"variant": "nlhe", "blinds": [10, 20], "seats": 3, "hand_players": 3})
    for number, (player, stack) in enumerate((("a", 500), ("b", 700), ("c", 900))):
        state = _seat(state, player, number, stack)
    state, _ = ENGINE.apply(state, StartHand(hashlib.sha256(b"stacks").digest()))
    while turns := ENGINE.turns(state):
        player = turns[0].player
        state, _ = ENGINE.apply(state, Act(player, ENGINE.timeout_action(state, player)))
    result = ENGINE.result(state)
    assert result is not None
    stacks = result.details["stacks"]
    assert sum(stacks.values()) == 2_100
    assert {p: 500 + 200 * i + result.deltas[p] for i, p in enumerate("abc")} == stacks


def test_hand_players_above_the_seats_is_refused() -> None:
    with pytest.raises(Malformed, match="hand_players"):
        ENGINE.open({"variant": "nlhe", "seats": 3, "hand_players": 4})
