"""Seed 000 round settlement: rules 20–33 and test vectors 1–11, 17, 18."""

from __future__ import annotations

import pytest

from croupier.rummy.core.cards import parse_cards
from croupier.rummy.core.outcome import (
    Ending,
    gin_penalty,
    rummy500_penalty,
    rummy_penalty,
)
from croupier.rummy.core.rummy40 import RULES as RUMMY40
from croupier.rummy.core.rummy51 import RULES as RUMMY51
from croupier.rummy.core.settlement import settle

RICH = 10_000


def test_vector_1_rummy51_hand_source_example() -> None:
    """Vector 1 (source, §10 [10.c]): Hand, loser holds 2, 2, 3; fee 30, ratio 3."""
    hand_value = RUMMY51.hand_value(parse_cards(["2c", "2d", "3h"]))
    penalty = rummy_penalty(Ending.HAND, hand_value)
    assert penalty == 32
    s = settle(
        players=["p1", "p2"],
        winner="p1",
        penalty={"p2": penalty},
        round_fee=30,
        chip_ratio=3,
        chips={"p1": RICH, "p2": RICH},
    )
    assert s.chips_paid == {"p2": 96}
    assert s.pot == 60
    assert s.chips_won == 156
    assert s.deltas == {"p1": 126, "p2": -126}


def test_vector_2_rule_24_gin() -> None:
    """Vector 2 / rule 24: gin, loser deadwood 15 → 40 negative points; fee 20, ratio 2."""
    penalty = gin_penalty(Ending.GIN, 0, 15)
    assert penalty == 40
    s = settle(
        players=["w", "l"],
        winner="w",
        penalty={"l": penalty},
        round_fee=20,
        chip_ratio=2,
        chips={"w": RICH, "l": RICH},
    )
    assert (s.chips_paid["l"], s.chips_won) == (80, 120)


def test_vector_3_rule_25_knock() -> None:
    """Vector 3 / rule 25: knock 4 vs 19 after lay-offs → 15; pays 30; knocker credited 70."""
    penalty = gin_penalty(Ending.KNOCK, 4, 19)
    assert penalty == 15
    s = settle(
        players=["k", "d"],
        winner="k",
        penalty={"d": penalty},
        round_fee=20,
        chip_ratio=2,
        chips={"k": RICH, "d": RICH},
    )
    assert (s.chips_paid["d"], s.chips_won) == (30, 70)


def test_vector_4_rule_26_undercut_adds_10_before_ratio() -> None:
    """Vector 4 / rule 26 / OQ 13: knocker 6, defender 3 → 6 − 3 + 10 = 13; pays 26; 66."""
    penalty = gin_penalty(Ending.UNDERCUT, 6, 3)
    assert penalty == 13
    s = settle(
        players=["k", "d"],
        winner="d",
        penalty={"k": penalty},
        round_fee=20,
        chip_ratio=2,
        chips={"k": RICH, "d": RICH},
    )
    assert (s.chips_paid["k"], s.chips_won) == (26, 66)


def test_rule_26_equal_deadwood_is_an_undercut_worth_10() -> None:
    """OQ 13: a tie is an undercut; the knocker is charged 0 + 10."""
    assert gin_penalty(Ending.UNDERCUT, 5, 5) == 10


def test_vector_5_rule_30_going_down_three_players() -> None:
    """Vector 5 / rule 30: going down, losers 20 and 7, fee 30, ratio 3 → 60 + 21 + 90."""
    penalties = {"b": rummy_penalty(Ending.OUT, 20), "c": rummy_penalty(Ending.OUT, 7)}
    s = settle(
        players=["a", "b", "c"],
        winner="a",
        penalty=penalties,
        round_fee=30,
        chip_ratio=3,
        chips={"a": RICH, "b": RICH, "c": RICH},
    )
    assert s.chips_paid == {"b": 60, "c": 21}
    assert s.chips_won == 171
    assert sum(s.deltas.values()) == 0


def test_vector_6_rule_28_rummy40_joker_15_by_hand() -> None:
    """Vector 6 / rules 28, 29 / OQ 11: Rummy 40 Hand, loser {Joker, K} → 15 + 10 + 25."""
    penalty = rummy_penalty(Ending.HAND, RUMMY40.hand_value(parse_cards(["X1", "Kd"])))
    assert penalty == 50
    s = settle(
        players=["w", "l"],
        winner="w",
        penalty={"l": penalty},
        round_fee=10,
        chip_ratio=2,
        chips={"w": RICH, "l": RICH},
    )
    assert s.chips_paid["l"] == 100
    assert s.chips_won == 100 + s.pot


def test_vector_7_rule_27_rummy51_joker_25_ace_11() -> None:
    """Vector 7 / rule 27: Rummy 51 Hand, loser {Joker, A} → 25 + 11 + 25 = 61."""
    assert rummy_penalty(Ending.HAND, RUMMY51.hand_value(parse_cards(["X2", "Ah"]))) == 61


def test_vector_8_rule_32_rummy500() -> None:
    """Vector 8 / rules 31, 32 / OQ 12: winner 85; loser melds 40, hand 22 → 67; pays 134."""
    penalty = rummy500_penalty(40, 22, 85)
    assert penalty == 67
    s = settle(
        players=["w", "l"],
        winner="w",
        penalty={"l": penalty},
        round_fee=20,
        chip_ratio=2,
        chips={"w": RICH, "l": RICH},
    )
    assert (s.chips_paid["l"], s.chips_won) == (134, 174)


def test_rule_32_loser_at_or_above_winner_pays_nothing() -> None:
    """OQ 12: a loser whose net score ≥ the winner's score has 0 negative points."""
    assert rummy500_penalty(100, 0, 85) == 0
    assert rummy500_penalty(85, 0, 85) == 0


def test_vector_9_rule_22_loser_pays_at_most_what_is_left_after_the_fee() -> None:
    """Vector 9 / rule 22: 100 chips, fee 30 → 70 at risk; owes 96 → pays 70, ends at 0."""
    s = settle(
        players=["w", "l"],
        winner="w",
        penalty={"l": 32},
        round_fee=30,
        chip_ratio=3,
        chips={"w": RICH, "l": 100},
    )
    assert s.chips_paid["l"] == 70
    assert 100 + s.deltas["l"] == 0


def test_vector_10_oq_9_winner_risk_limit_flag_on_by_default() -> None:
    """Vector 10 / OQ 9: winner has 40, fee 30 → 10 at risk; loser owes 96 → pays 10."""
    s = settle(
        players=["w", "l"],
        winner="w",
        penalty={"l": 32},
        round_fee=30,
        chip_ratio=3,
        chips={"w": 40, "l": 200},
    )
    assert s.chips_paid["l"] == 10
    assert s.chips_won == 70
    off = settle(
        players=["w", "l"],
        winner="w",
        penalty={"l": 32},
        round_fee=30,
        chip_ratio=3,
        chips={"w": 40, "l": 200},
        limit_to_winner_risk=False,
    )
    assert off.chips_paid["l"] == 96


def test_vector_11_rule_20_21_short_stack_pays_all_and_wins_whole_pot() -> None:
    """Vector 11 / rules 20, 21 / OQ 8: 20 chips at fee 30 → pays 20, wins the whole pot."""
    s = settle(
        players=["short", "big"],
        winner="short",
        penalty={"big": 5},
        round_fee=30,
        chip_ratio=1,
        chips={"short": 20, "big": 500},
    )
    assert s.fees == {"short": 20, "big": 30}
    assert s.pot == 50
    assert s.chips_paid["big"] == 0  # the winner risked nothing beyond the fee (OQ 9)
    assert s.chips_won == 50
    lost = settle(
        players=["short", "big"],
        winner="big",
        penalty={"short": 40},
        round_fee=30,
        chip_ratio=3,
        chips={"short": 20, "big": 500},
    )
    assert lost.chips_paid["short"] == 0  # OQ 8: nothing left to pay
    assert lost.deltas == {"short": -20, "big": 20}


def test_rule_23_pot_is_won_once_and_chips_are_conserved() -> None:
    """Rule 23: winner's total = pot (once) + all payments; deltas sum to 0."""
    s = settle(
        players=["a", "b", "c", "d"],
        winner="c",
        penalty={"a": 3, "b": 9, "d": 1},
        round_fee=7,
        chip_ratio=5,
        chips={"a": 50, "b": 300, "c": 90, "d": 6},
    )
    assert s.chips_won == s.pot + sum(s.chips_paid.values())
    assert sum(s.deltas.values()) == 0
    assert s.fees["d"] == 6 and s.chips_paid["d"] == 0


def test_oq_15_each_loser_limited_independently_by_winner_risk() -> None:
    """OQ 15 / rule 22: the winner's limit applies to each loser separately."""
    s = settle(
        players=["w", "x", "y"],
        winner="w",
        penalty={"x": 50, "y": 50},
        round_fee=10,
        chip_ratio=1,
        chips={"w": 40, "x": 500, "y": 500},
    )
    assert s.chips_paid == {"x": 30, "y": 30}


def test_draw_returns_fees_and_moves_nothing() -> None:
    """A round with no winner (stock exhausted): fees come back (as OQ 24), no points."""
    s = settle(
        players=["a", "b"],
        winner=None,
        penalty={},
        round_fee=20,
        chip_ratio=2,
        chips={"a": 100, "b": 100},
    )
    assert s.deltas == {"a": 0, "b": 0}
    assert s.chips_won == 0 and s.tournament_points == {}


def _points(winner: str, penalty: dict[str, int]) -> dict[str, int]:
    """The tournament points a settled round gives (a fee of 1, a ratio of 1, deep stacks)."""
    players = [winner, *penalty]
    chips = dict.fromkeys(players, 1000)
    s = settle(
        players=players, winner=winner, penalty=penalty, round_fee=1, chip_ratio=1, chips=chips
    )
    return dict(s.tournament_points)


def test_vector_17_rule_33_tournament_points_four_players() -> None:
    """Vector 17 / rule 33 / OQ 16: negative points 10, 25, 60 → 2, 2, 1; winner 3."""
    assert _points("w", {"a": 10, "b": 25, "c": 60}) == {"w": 3, "a": 2, "b": 2, "c": 1}


def test_vector_18_rule_33_two_player_table() -> None:
    """Vector 18: winner 3, loser 1."""
    s = settle(
        players=["w", "l"],
        winner="w",
        penalty={"l": 4},
        round_fee=1,
        chip_ratio=1,
        chips={"w": 10, "l": 10},
    )
    assert s.tournament_points == {"w": 3, "l": 1}


def test_oq_16_players_tied_for_last_all_get_1() -> None:
    assert _points("w", {"a": 60, "b": 60, "c": 5}) == {"w": 3, "a": 1, "b": 1, "c": 2}


@pytest.mark.parametrize("bad", [-1, 1.5])
def test_settlement_rejects_non_integer_or_negative_amounts(bad: object) -> None:
    with pytest.raises(ValueError):
        settle(
            players=["a", "b"],
            winner="a",
            penalty={"b": 1},
            round_fee=bad,  # type: ignore[arg-type]
            chip_ratio=1,
            chips={"a": 1, "b": 1},
        )
