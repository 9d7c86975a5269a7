"""Legal play generation (seed 001 rules 23-33, OQ 14) checked against GNU Backgammon."""

from __future__ import annotations

import json
import pathlib
import random

import gnubg_nn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.backgammon.core.board import STARTING_BOARD, Board, position_id
from croupier.backgammon.core.moves import legal_plays, legal_positions, match_play
from croupier.backgammon.core.notation import IllegalPlay, format_play, parse_play
from croupier.backgammon.tools.conformance import run_scenario
from croupier.backgammon.tools.sample import describe, random_positions
from tests.support import paths
from tests.support.backgammon import board

PUBLIC = paths.PUBLIC / "backgammon"
PUBLIC_EXAMPLES = sorted(p for p in PUBLIC.glob("*.json") if not p.name.endswith(".expected.json"))
# An empty list would parametrise nothing and pass: the 12 public legal-move examples.
assert len(PUBLIC_EXAMPLES) == 12, f"public backgammon examples missing from {PUBLIC}"


def ids(positions: list[Board]) -> list[str]:
    return sorted(position_id(b) for b in positions)


def gnubg_ids(b: Board, d1: int, d2: int) -> list[str]:
    keys = gnubg_nn.moves([list(b[0]), list(b[1])], d1, d2)
    if not keys:
        return [position_id(b)]
    return sorted(
        gnubg_nn.position_id([list(s) for s in gnubg_nn.board_from_position_key(k)]) for k in keys
    )


@pytest.mark.parametrize(
    ("dice", "count"), [((1, 1), 42), ((2, 1), 15), ((2, 2), 75), ((6, 6), 11), ((3, 1), 16)]
)
def test_opening_play_counts_match_gnubg(dice: tuple[int, int], count: int) -> None:
    """Rule OQ 14 opening: distinct plays per roll, as gnubg lists them."""
    assert len(legal_positions(STARTING_BOARD, *dice)) == count
    assert ids(legal_positions(STARTING_BOARD, *dice)) == gnubg_ids(STARTING_BOARD, *dice)


def test_every_opening_roll_matches_gnubg() -> None:
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            assert ids(legal_positions(STARTING_BOARD, d1, d2)) == gnubg_ids(STARTING_BOARD, d1, d2)


def test_random_positions_match_gnubg_exactly() -> None:
    """2,000 random reachable positions x dice: the sets of resulting Position IDs are
    identical to gnubg's (the full 10,000 run is scripts/backgammon_vs_gnubg.py)."""
    samples = random_positions(random.Random(2026), 2000)
    kinds = describe(samples)
    assert kinds["mover_on_bar"] > 100 and kinds["bearing_off"] > 50
    assert kinds["no_legal_move"] > 20 and kinds["doubles"] > 200
    mismatches = [
        (position_id(s.board), s.d1, s.d2)
        for s in samples
        if ids(legal_positions(s.board, s.d1, s.d2)) != gnubg_ids(s.board, s.d1, s.d2)
    ]
    assert mismatches == []


def test_plays_are_one_per_distinct_position_and_parse_back() -> None:
    for s in random_positions(random.Random(11), 300):
        plays = legal_plays(s.board, s.d1, s.d2)
        positions = legal_positions(s.board, s.d1, s.d2)
        if not plays:
            assert positions == [s.board]
            continue
        assert sorted(position_id(p.board) for p in plays) == ids(positions)
        for p in plays:
            assert match_play(s.board, s.d1, s.d2, p.notation) == p.board


@pytest.mark.parametrize("path", PUBLIC_EXAMPLES, ids=[p.stem for p in PUBLIC_EXAMPLES])
def test_public_conformance_examples(path: pathlib.Path) -> None:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    out = run_scenario(json.loads(path.read_text()))
    assert out["error"] is None
    assert sorted(out["positions"]) == expected["positions"]


def test_vector_18_enter_with_the_open_die_then_play_the_other() -> None:
    """Vector 18: 6-4, one on the bar, opponent holds his 4-point, 6-point empty."""
    b = board({"bar": 1, 13: 5, 8: 3, 6: 5, 24: 1}, {4: 2, 6: 0, 13: 5, 8: 3, 24: 5})
    plays = legal_plays(b, 6, 4)
    assert plays
    for p in plays:
        assert p.board[1][24] == 0
        assert p.notation.startswith("bar/19") or "bar/15" in p.notation
    assert "bar/19 13/9" in {p.notation for p in plays}
    assert "bar/15" in {p.notation for p in plays}  # the entered checker may play the 4


def test_vector_19_blocked_entry_forfeits_the_turn() -> None:
    """Vector 19: 6-4 with the opponent holding both the 4- and the 6-point."""
    b = board({"bar": 1, 13: 5, 8: 4, 6: 5}, {4: 2, 6: 2, 13: 5, 8: 3, 24: 3})
    assert legal_plays(b, 6, 4) == []
    assert legal_positions(b, 6, 4) == [b]
    assert match_play(b, 6, 4, "") == b


def test_vector_20_two_on_bar_only_one_enters() -> None:
    """Vector 20: two on the bar, 5-3, 3-point open, 5-point blocked: one enters on 22."""
    b = board({"bar": 2, 13: 5, 8: 3, 6: 5}, {5: 2, 13: 5, 8: 3, 6: 5})
    plays = legal_plays(b, 5, 3)
    assert [p.notation for p in plays] == ["bar/22"]
    assert plays[0].board[1][24] == 1


def test_vector_21_larger_die_bears_off_from_the_highest_point() -> None:
    """Vector 21: checkers only on the 5- and 2-points, 6-1: the 6 bears off from the 5."""
    b = board({5: 1, 2: 1}, {1: 2})
    notations = {p.notation for p in legal_plays(b, 6, 1)}
    assert notations == {"5/off 2/1", "5/off"}  # 5/off with the 6, the 1 moves; or 5/4/off


def test_vector_22_higher_checker_must_move() -> None:
    """Vector 22: checkers on the 6- and 3-points, die 4: 6/2, never 3/off with the 4."""
    b = board({6: 1, 3: 1}, {1: 2})
    assert {p.notation for p in legal_plays(b, 4, 1)} == {"6/2 3/2", "6/1"}
    with pytest.raises(IllegalPlay):
        match_play(b, 4, 1, "6/5 3/off")


def test_vector_23_bearing_off_is_not_compulsory() -> None:
    """Vector 23: checkers on the 6- and 5-points, a 5: 5/off or 6/1 are both legal."""
    b = board({6: 1, 5: 1}, {1: 2})
    notations = {p.notation for p in legal_plays(b, 5, 2)}
    assert "6/4 5/off" in notations
    assert "6/1 5/3" in notations


def test_rule_only_the_larger_die_when_both_cannot_be_played() -> None:
    """OQ 14: if either die can be played but not both, the larger must be played."""
    # 24/18 and 24/23 are open; 18/17 and 23/17 are blocked.
    b = board({24: 1}, {8: 2, 20: 13})
    assert {p.notation for p in legal_plays(b, 6, 1)} == {"24/18"}


@pytest.mark.parametrize(
    ("text", "moves"),
    [
        ("8/5(2) 6/5(2)", [(8, 5), (8, 5), (6, 5), (6, 5)]),
        ("24/20*/16", [(24, 20), (20, 16)]),
        ("bar/22*", [(25, 22)]),
        ("6/off", [(6, 0)]),
        ("13/7* 6/5*", [(13, 7), (6, 5)]),
        ("  6/5   8/5 ", [(8, 5), (6, 5)]),
        ("", []),
    ],
)
def test_parse_gnubg_notation(text: str, moves: list[tuple[int, int]]) -> None:
    assert parse_play(text) == moves


@pytest.mark.parametrize("text", ["8/", "/5", "8/5(", "5/8", "off/3", "3/bar", "8//5", "x"])
def test_parse_rejects_malformed_plays(text: str) -> None:
    with pytest.raises(IllegalPlay):
        parse_play(text)


def test_format_like_gnubg() -> None:
    assert format_play(STARTING_BOARD, [(8, 5), (6, 5)]) == "8/5 6/5"
    assert format_play(STARTING_BOARD, [(24, 20), (20, 16), (24, 20), (20, 16)]) == "24/16(2)"
    assert format_play(STARTING_BOARD, [(13, 9), (13, 9), (9, 5), (6, 2)]) == "13/5 13/9 6/2"
    b = board({24: 2, 13: 5, 8: 3, 6: 5}, {5: 1, 13: 5, 8: 3, 6: 5, 24: 1})
    # the opponent's blot on his 5-point is the mover's 20-point: an intermediate hit
    assert format_play(b, [(24, 20), (20, 16)]) == "24/20*/16"


def test_a_written_play_lands_and_hits_only_where_written() -> None:
    """README: '24/16' with 4-4 passes 20 without landing; '24/20*/16' hits there."""
    b = board({24: 2, 13: 5, 8: 3, 6: 5}, {5: 1, 13: 5, 8: 3, 6: 5, 24: 1})
    hit = match_play(b, 4, 4, "24/20*/16 13/9(2)")
    assert hit[0][24] == 1
    with pytest.raises(IllegalPlay):
        match_play(b, 4, 4, "24/16 13/9(2)")  # cannot reach 16 without landing on the blot
    assert match_play(b, 4, 4, "24/20/16 13/9(2)") == hit  # '*' is optional


def test_rule_24_nothing_moves_before_the_bar_is_empty() -> None:
    """Rule 24: with a checker on the bar every legal play starts by entering it."""
    b = board({"bar": 1, 13: 5, 8: 3, 6: 5, 24: 1}, {13: 5, 8: 3, 6: 5, 24: 2})
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            for p in legal_plays(b, d1, d2):
                assert p.notation.startswith("bar/")


def test_rule_34_a_hit_checker_must_come_home_before_bearing_off_resumes() -> None:
    """Rule 34: a checker on the bar during the bear-off blocks bearing off this turn."""
    b = board({"bar": 1, 6: 4, 5: 4, 4: 4, 3: 2}, {1: 2, 2: 2})
    for d1, d2 in ((6, 6), (6, 5), (1, 1), (4, 3)):
        assert all("off" not in p.notation for p in legal_plays(b, d1, d2))
    home = board({6: 4, 5: 4, 4: 4, 3: 3}, {1: 2, 2: 2})
    assert any("off" in p.notation for p in legal_plays(home, 6, 5))


def test_late_positions_every_roll_matches_gnubg() -> None:
    """Rules 29-34 under stress: positions with at most 3 checkers outside home, all 21 rolls."""
    late = [s for s in random_positions(random.Random(99), 6000) if sum(s.board[1][6:]) <= 3]
    assert len(late) > 150
    for s in late[:150]:
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                assert ids(legal_positions(s.board, d1, d2)) == gnubg_ids(s.board, d1, d2)


@st.composite
def arbitrary_boards(draw: st.DrawFn) -> Board:
    """Any legal board: up to 15 checkers a side anywhere (bar included), no shared point."""
    mover = [0] * 25
    for slot in draw(st.lists(st.integers(0, 24), min_size=1, max_size=15)):
        mover[slot] += 1
    opp = [0] * 25
    for slot in draw(st.lists(st.integers(0, 24), min_size=1, max_size=15)):
        if slot == 24 or not mover[23 - slot]:
            opp[slot] += 1
    return (tuple(opp), tuple(mover))


@settings(max_examples=400, deadline=None)
@given(arbitrary_boards(), st.integers(1, 6), st.integers(1, 6))
def test_arbitrary_boards_match_gnubg(b: Board, d1: int, d2: int) -> None:
    """Not only reachable positions: any legal board and roll gives gnubg's set."""
    assert ids(legal_positions(b, d1, d2)) == gnubg_ids(b, d1, d2)
