"""One round's chips and points (docs/rules/rummy-tournaments.md rules 20-23, 33; vectors
1, 9-11, 17, 18, 22; OQ 8, 9, 15, 16, 24)."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

from croupier.game import points as points_module
from croupier.tournament.core import ranking as ranking_module
from croupier.tournament.core.actions import RoundCancelled, RoundSettled, RoundStarted
from croupier.tournament.core.standings import apply
from croupier.tournament.core.state import Tournament

from .play import LEVEL, begin, cancel, chips, finish, points, run, tournament


def _ann_40_bob_200(*, flag: bool = True) -> Tournament:
    """Level 2 (fee 30, ratio 3) with ann holding 40 and bob 200 (vector 10's stacks)."""
    state = tournament(("ann", "bob"), start=120, levels=[(0, 1), (30, 3)], winner_risk_limit=flag)
    return run(state, begin("r1", "ann", "bob"), finish("r1", "bob", ann=80), LEVEL)


def test_rule_20_every_player_pays_the_fee_into_the_pot_when_the_round_starts() -> None:
    state, events = apply(tournament(levels=[(30, 3)]), begin("r1", "ann", "bob"))
    assert chips(state) == {"ann": 970, "bob": 970, "cat": 1000}
    assert events == (RoundStarted("r1", ("ann", "bob"), (30, 30), 30, 3),)


def test_vector_11_oq_8_rule_20_a_short_stack_pays_all_and_plays_rule_21_takes_the_pot() -> None:
    state = _ann_40_bob_200()
    state = run(state, begin("r2", "ann", "bob"), cancel("r2"))
    state = run(state, begin("r3", "ann", "bob"), finish("r3", "bob", ann=0))
    assert chips(state) == {"ann": 10, "bob": 230}
    state, events = apply(state, begin("r4", "ann", "bob"))
    assert isinstance(events[0], RoundStarted) and events[0].fees == (10, 30)
    assert chips(state) == {"ann": 0, "bob": 200}
    state, events = apply(state, finish("r4", "ann", bob=5))
    # Rule 21: the whole pot of 40 though ann paid 10; with the OQ 9 flag bob pays
    # nothing more, ann having nothing left at risk.
    assert isinstance(events[0], RoundSettled) and events[0].pot == 40
    assert events[0].payments == (("bob", 0),)
    assert chips(state) == {"ann": 40, "bob": 200}


def test_vector_1_rules_22_23_loser_pays_points_times_ratio_winner_takes_pot_and_it() -> None:
    state = run(tournament(("p1", "p2"), levels=[(30, 3)]), begin("r1", "p1", "p2"))
    state, events = apply(state, finish("r1", "p1", p2=32))
    assert events[0] == RoundSettled("r1", "p1", 60, (("p2", 96),), (("p1", 3), ("p2", 1)))
    assert chips(state) == {"p1": 1126, "p2": 874}  # +126 / -126


def test_vector_9_rule_22_a_loser_pays_at_most_what_he_has_left_after_the_fee() -> None:
    state = tournament(("ann", "bob"), start=100, levels=[(30, 3)])
    state = run(state, begin("r1", "ann", "bob"), finish("r1", "ann", bob=32))
    assert chips(state) == {"ann": 200, "bob": 0}
    assert state.eliminated == ("bob",)


def test_vector_10_oq_9_the_flag_limits_each_payment_to_the_winners_chips_at_risk() -> None:
    state = run(_ann_40_bob_200(), begin("r2", "ann", "bob"), finish("r2", "ann", bob=32))
    assert chips(state) == {"ann": 80, "bob": 160}  # bob pays 10: ann risked 10


def test_oq_9_without_the_flag_only_the_losers_own_chips_limit_his_payment() -> None:
    state = _ann_40_bob_200(flag=False)
    state = run(state, begin("r2", "ann", "bob"), finish("r2", "ann", bob=32))
    assert chips(state) == {"ann": 166, "bob": 74}  # bob pays all 96


def test_oq_15_each_loser_is_limited_on_his_own_from_the_counts_after_the_fee() -> None:
    # ann (winner) risks 100 after the fee; bob and cat each owe 90: each is limited by
    # ann's 100 on its own (not by what is left of it after the other's payment).
    state = tournament(("ann", "bob", "cat"), start=110, levels=[(10, 1)])
    state = run(state, begin("r1", "ann", "bob", "cat"), finish("r1", "ann", cat=90, bob=90))
    assert chips(state) == {"ann": 100 + 30 + 180, "bob": 10, "cat": 10}


def test_rule_23_the_pot_is_added_once_whatever_the_number_of_losers() -> None:
    # Vector 5's arithmetic: fee 30 each, ratio 3, losers 20 and 7 points.
    state = tournament(("w", "x", "y"), levels=[(30, 3)])
    state, events = apply(run(state, begin("r1", "w", "x", "y")), finish("r1", "w", x=20, y=7))
    assert isinstance(events[0], RoundSettled)
    assert events[0].payments == (("x", 60), ("y", 21))
    assert chips(state)["w"] == 970 + 90 + 60 + 21  # credited 171


def test_vector_17_rule_33_oq_16_winner_3_losers_2_the_most_negative_points_1() -> None:
    state = tournament(("w", "a", "b", "c"))
    state = run(state, begin("r1", "w", "a", "b", "c"), finish("r1", "w", a=10, b=25, c=60))
    assert points(state) == {"w": 3, "a": 2, "b": 2, "c": 1}


def test_vector_18_rule_33_at_a_two_player_table_the_loser_gets_1() -> None:
    state = run(tournament(("w", "a")), begin("r1", "w", "a"), finish("r1", "w", a=0))
    assert points(state) == {"w": 3, "a": 1}


def test_oq_16_every_loser_tied_for_the_most_negative_points_gets_1() -> None:
    state = tournament(("w", "a", "b", "c"))
    state = run(state, begin("r1", "w", "a", "b", "c"), finish("r1", "w", a=7, b=9, c=9))
    assert points(state) == {"w": 3, "a": 2, "b": 1, "c": 1}


def test_vector_22_oq_24_a_cancelled_round_returns_each_fee_and_gives_no_points() -> None:
    state = tournament(("ann", "bob", "cat"), start=100, levels=[(30, 3)])
    state = run(state, begin("r1", "ann", "bob"), finish("r1", "ann", bob=20))
    assert chips(state) == {"ann": 190, "bob": 10, "cat": 100}
    before = points(state)
    state = run(state, begin("r2", "ann", "bob", "cat"))
    assert chips(state) == {"ann": 160, "bob": 0, "cat": 70}
    state, events = apply(state, cancel("r2"))
    assert events == (RoundCancelled("r2", (("ann", 30), ("bob", 10), ("cat", 30))),)
    assert chips(state) == {"ann": 190, "bob": 10, "cat": 100}
    assert points(state) == before
    assert state.running == ()


@pytest.mark.parametrize("module", [points_module, ranking_module], ids=lambda m: m.__name__)
def test_docstring_examples(module: ModuleType) -> None:
    failures, tried = doctest.testmod(module)
    assert tried > 0 and failures == 0
