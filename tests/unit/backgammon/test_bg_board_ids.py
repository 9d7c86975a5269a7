"""Position ID and Match ID (GNU Backgammon's documented interchange formats)."""

from __future__ import annotations

import random

import gnubg_nn
import pytest

from croupier.backgammon.core.board import (
    STARTING_BOARD,
    InvalidPosition,
    board_from_position_id,
    position_id,
    swap,
)
from croupier.backgammon.core.matchid import InvalidMatchId, MatchKey, decode_match_id, match_id
from croupier.backgammon.tools.sample import random_positions


def test_starting_position_id() -> None:
    assert position_id(STARTING_BOARD) == "4HPwATDgc/ABMA"
    assert board_from_position_id("4HPwATDgc/ABMA") == STARTING_BOARD


def test_position_ids_match_gnubg_on_random_positions() -> None:
    for sample in random_positions(random.Random(7), 500):
        b = sample.board
        gnubg_board = [list(b[0]), list(b[1])]
        pid = position_id(b)
        assert pid == gnubg_nn.position_id(gnubg_board)
        assert board_from_position_id(pid) == b
        assert board_from_position_id(position_id(swap(b))) == swap(b)


@pytest.mark.parametrize("bad", ["", "4HPwATDgc/AB", "!!!!!!!!!!!!!!", "//////////////"])
def test_invalid_position_ids_are_rejected(bad: str) -> None:
    with pytest.raises(InvalidPosition):
        board_from_position_id(bad)


def test_match_id_manual_example() -> None:
    """gnubg manual: cube 2 owned by player 0, player 1 on roll with 52, 9-point match 2-4."""
    key = decode_match_id("QYkqASAAIAAA")
    assert key == MatchKey(
        cube=2,
        cube_owner=0,
        on_roll=1,
        crawford=False,
        game_state=1,
        turn=1,
        doubled=False,
        resigned=0,
        dice=(5, 2),
        match_length=9,
        score=(2, 4),
    )
    assert match_id(key) == "QYkqASAAIAAA"


def test_match_id_round_trips() -> None:
    rng = random.Random(3)
    for _ in range(200):
        key = MatchKey(
            cube=1 << rng.randint(0, 6),
            cube_owner=rng.choice([None, 0, 1]),
            on_roll=rng.randint(0, 1),
            crawford=rng.random() < 0.5,
            game_state=rng.randint(0, 4),
            turn=rng.randint(0, 1),
            doubled=rng.random() < 0.5,
            resigned=rng.randint(0, 3),
            dice=(rng.randint(0, 6), rng.randint(0, 6)),
            match_length=rng.randint(0, 25),
            score=(rng.randint(0, 24), rng.randint(0, 24)),
        )
        text = match_id(key)
        assert len(text) == 12
        assert decode_match_id(text) == key


def test_bad_match_ids() -> None:
    with pytest.raises(InvalidMatchId):
        decode_match_id("short")
    with pytest.raises(InvalidMatchId):
        match_id(MatchKey(cube=3))
