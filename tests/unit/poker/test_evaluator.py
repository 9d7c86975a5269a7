"""Hand evaluation: seed 002 rules 2, 3, 60-62 and test vectors 31-34; ordering vs eval7."""

from __future__ import annotations

import importlib.util
import random
import warnings
from types import ModuleType

from croupier.poker.adapters.evaluator import (
    best_five,
    category,
    hand_value,
    holdem_value,
    omaha_value,
    value5,
)
from croupier.poker.core import cards as C
from tests.support.paths import ROOT


def v(names: str) -> int:
    return value5(C.parse_all(names.split()))


def test_rule_60_categories_high_to_low() -> None:
    hands = [
        "As Ks Qs Js Ts",
        "Kh Qh Jh Th 9h",
        "9c 9d 9h 9s 2c",
        "9c 9d 9h 2s 2c",
        "Ac Jc 8c 4c 2c",
        "9c Td Jh Qs Kc",
        "9c 9d 9h Ks 2c",
        "9c 9d Kh Ks 2c",
        "9c 9d Ah Ks 2c",
        "Ac Qd 9h 7s 2c",
    ]
    values = [v(h) for h in hands]
    assert values == sorted(values, reverse=True)
    assert [category(x) for x in values] == [
        "royal_flush",
        "straight_flush",
        "four_of_a_kind",
        "full_house",
        "flush",
        "straight",
        "three_of_a_kind",
        "two_pair",
        "one_pair",
        "high_card",
    ]


def test_rule_61_vector_31_ace_low_wheel_and_no_wrap_around() -> None:
    assert v("As Ks Qs Js Ts") > v("Kh Qh Jh Th 9h")
    assert category(v("5d 4c 3h 2s Ad")) == "straight"
    assert v("5d 4c 3h 2s Ad") < v("6h 5s 4d 3c 2h")
    assert category(v("Qs Kd Ah 2c 3d")) == "high_card"  # Q-K-A-2-3 is not a straight
    assert category(v("5h 4h 3h 2h Ah")) == "straight_flush"


def test_rule_62_vector_31_suits_never_break_ties_and_kickers_do() -> None:
    assert v("Ah Jh 9h 6h 3h") == v("As Js 9s 6s 3s")
    assert v("Ah Ad Kc 7s 4d") > v("As Ac Qh 7d 4c")


def test_rule_3_vector_32_omaha_needs_two_hole_cards_of_the_suit() -> None:
    hole = C.parse_all(["Ah", "Kh", "Qh", "Jh"])
    board = C.parse_all(["2h", "7h", "9c", "Ts", "3d"])
    value = omaha_value(hole, board)
    assert category(value) == "high_card"
    assert sorted(C.names(best_five(hole, board, True))) == sorted(["Ah", "Kh", "Ts", "9c", "7h"])
    assert value == value5(C.parse_all(["Ah", "Kh", "Ts", "9c", "7h"]))


def test_rules_2_3_vector_33_omaha_straight_holdem_flush() -> None:
    board = C.parse_all(["Qh", "Jh", "Th", "9h", "2h"])
    plo = omaha_value(C.parse_all(["Ah", "Kd", "5c", "6s"]), board)
    assert category(plo) == "straight"
    assert plo == v("Ah Kd Qh Jh Th")
    nlhe = holdem_value(C.parse_all(["Ah", "Kd"]), board)
    assert category(nlhe) == "flush"
    assert nlhe == v("Ah Qh Jh Th 9h")


def test_rule_2_vector_34_board_plays_for_everyone() -> None:
    board = C.parse_all(["As", "Ks", "Qs", "Js", "Ts"])
    values = {
        holdem_value(C.parse_all(h), board) for h in (["2c", "3d"], ["Ah", "Kh"], ["9s", "8s"])
    }
    assert len(values) == 1 and category(values.pop()) == "royal_flush"


def test_omaha_partial_boards_and_hand_value_dispatch() -> None:
    hole = C.parse_all(["Ah", "Ad", "Kc", "Ks"])
    flop = C.parse_all(["As", "2c", "7d"])
    assert category(omaha_value(hole, flop)) == "three_of_a_kind"
    assert hand_value(hole, flop + C.parse_all(["Kh", "Ac"]), True) == omaha_value(
        hole, flop + C.parse_all(["Kh", "Ac"])
    )


def _script() -> ModuleType:
    path = ROOT / "scripts" / "poker_evaluator_check.py"
    spec = importlib.util.spec_from_file_location("poker_evaluator_check", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():  # eval7 imports pyparsing with deprecated names
        warnings.simplefilter("ignore", DeprecationWarning)
        spec.loader.exec_module(module)
    return module


def test_ordering_matches_eval7_on_a_sample() -> None:
    """The full 1,000,000-hand check is scripts/poker_evaluator_check.py; this is a sample."""
    script = _script()
    rng = random.Random(7)
    for size in (7, 6, 5):
        _, problems = script.check_holdem(20_000 if size == 7 else 3_000, rng, size)
        assert problems == []
    assert script.check_omaha(2_000, rng) == []


def test_fast_paths_agree_with_hand_values() -> None:
    from croupier.poker.adapters import evaluator as E

    rng = random.Random(9)
    hands = [tuple(rng.sample(range(52), 9)) for _ in range(500)]
    sevens = [h[:7] for h in hands]
    assert E.ranks7(sevens) == [E.rank7(*h) for h in sevens]
    assert [E.WORST + 1 - r for r in E.ranks7(sevens)] == [
        holdem_value(h[:2], h[2:]) for h in sevens
    ]
    nines = [(*h[4:], *h[:4]) for h in hands]
    assert [E.WORST + 1 - r for r in E.ranks_omaha(nines)] == [
        omaha_value(h[:4], h[4:]) for h in hands
    ]
