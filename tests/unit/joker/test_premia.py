"""Seed 003 premia/moshla: implementation rules 4–15 and 21 (options), test vectors 1–14,
17, 18 (the sheet, ledger and colour rules are in test_game.py)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from croupier.joker.core.options import Khishti, MultiPremia, Options
from croupier.joker.core.premia import PulkaSettlement, settle_pulka
from croupier.joker.core.scoring import HandOutcome, format_points

K = "K"  # a khishti in a hand list
Cell = int | str


def outcome(cell: Cell, n: int = 9) -> HandOutcome:
    """The (bid, took) that scores `cell` in a 9-card hand: 50 pass, 100.. fulfilled,
    10·t failed ("f20"), "K" khishti."""
    if cell == K:
        return HandOutcome(bid=1, took=0, cards=n)
    if isinstance(cell, str) and cell.startswith("f"):
        took = int(cell[1:]) // 10
        return HandOutcome(bid=took + 1, took=took, cards=n)
    assert isinstance(cell, int)
    bid = 0 if cell == 50 else cell // 50 - 1
    return HandOutcome(bid=bid, took=bid, cards=n)


def settle(rows: dict[str, Sequence[Cell]], options: Options | None = None) -> PulkaSettlement:
    players = list(rows)
    count = len(next(iter(rows.values())))
    hands = [{p: outcome(rows[p][i]) for p in players} for i in range(count)]
    return settle_pulka(players, hands, options)


# §4.1: Giorgi fulfils everything; Nika, Ana and Levan each fail one hand.
GIORGI: list[Cell] = [150, 200, 100, 250]
NIKA: list[Cell] = [100, "f20", 300, 50]
ANA: list[Cell] = ["f20", 150, 50, "f20"]
LEVAN: list[Cell] = [250, 150, "f30", 200]
FAILER: list[Cell] = ["f10", 100, 100, 100]


def test_vector_1_premia_is_best_hand_once() -> None:
    s = settle({"g": [100, 150, 200, 250], "n": FAILER, "a": FAILER, "l": FAILER}).of("g")
    assert (s.premia, s.result, format_points(s.result)) == (250, 950, "9.5")


def test_vector_2_rule_7_best_score_twice_is_added_once() -> None:
    s = settle({"g": [250, 250, 100, 150], "n": FAILER, "a": FAILER, "l": FAILER}).of("g")
    assert (s.premia, s.result, format_points(s.result)) == (250, 1000, "10")


def test_vector_3_moshla_keeps_the_wiped_hand_in_the_sum() -> None:
    s = settle({"g": GIORGI, "x": [100, 150, "f30", 250], "a": ANA, "l": LEVAN}).of("x")
    assert (s.moshla, s.result, format_points(s.result)) == (-250, 280, "2.8")
    assert s.hand_scores[3] == 250 and s.crossed_out == 3


def test_vector_4_giorgi_only_qualifier() -> None:
    s = settle({"giorgi": GIORGI, "nika": NIKA, "ana": ANA, "levan": LEVAN}).of("giorgi")
    assert (s.hands_sum, s.premia, s.moshla, s.result) == (700, 250, 0, 950)
    assert format_points(s.result) == "9.5"


def test_vector_5_nika_charged_his_own_best_hand() -> None:
    s = settle({"giorgi": GIORGI, "nika": NIKA, "ana": ANA, "levan": LEVAN}).of("nika")
    assert (s.premia, s.moshla, s.result, format_points(s.result)) == (0, -300, 170, "1.7")
    assert s.crossed_out == 2


def test_vector_6_ana_and_levan_each_lose_their_own_best() -> None:
    settled = settle({"giorgi": GIORGI, "nika": NIKA, "ana": ANA, "levan": LEVAN})
    assert settled.of("ana").moshla == -150
    assert settled.of("levan").moshla == -250
    assert settled.of("levan").crossed_out == 0


def test_vector_7_rule_11_two_qualifiers_both_table_rules() -> None:
    ana_clean: list[Cell] = [50, 150, 200, 100]
    rows: dict[str, Sequence[Cell]] = {
        "giorgi": GIORGI,
        "nika": NIKA,
        "ana": ana_clean,
        "levan": LEVAN,
    }
    deducted = settle(rows)
    assert deducted.of("giorgi").premia == 250
    assert deducted.of("ana").premia == 200
    assert deducted.of("nika").moshla == -300 and deducted.of("nika").result == 170
    assert deducted.of("levan").moshla == -250
    kept = settle(rows, Options(multi_premia=MultiPremia.OTHERS_NOT_DEDUCTED))
    assert kept.of("giorgi").premia == 250 and kept.of("ana").premia == 200
    assert kept.of("nika").moshla == 0 and kept.of("levan").moshla == 0
    assert format_points(kept.of("nika").result) == "4.7"


def test_vector_8_rule_10_nobody_qualifies_plain_sums_khishti_included() -> None:
    rows: dict[str, Sequence[Cell]] = {"g": [100, K, 150, 50], "n": NIKA, "a": ANA, "l": LEVAN}
    settled = settle(rows)
    for s in settled.players:
        assert s.premia == 0 and s.moshla == 0 and s.crossed_out is None
        assert s.result == sum(s.hand_scores)
    assert settled.of("g").result == 100 - 200 + 150 + 50


@pytest.mark.parametrize("rule", list(MultiPremia))
def test_vector_9_rule_12_four_qualifiers_nobody_charged(rule: MultiPremia) -> None:
    rows: dict[str, Sequence[Cell]] = {
        "g": GIORGI,
        "n": [50, 50, 100, 50],
        "a": [300, 50, 50, 50],
        "l": [100, 100, 100, 100],
    }
    settled = settle(rows, Options(multi_premia=rule))
    assert [s.premia for s in settled.players] == [250, 100, 300, 100]
    assert all(s.moshla == 0 and not s.charged for s in settled.players)


def test_vector_10_rule_11_three_qualifiers() -> None:
    rows: dict[str, Sequence[Cell]] = {"g": GIORGI, "n": NIKA, "a": [50] * 4, "l": [100] * 4}
    deducted = settle(rows)
    assert deducted.of("n").moshla == -300
    assert [deducted.of(p).moshla for p in "gal"] == [0, 0, 0]
    kept = settle(rows, Options(multi_premia=MultiPremia.OTHERS_NOT_DEDUCTED))
    assert all(s.moshla == 0 for s in kept.players)
    assert kept.of("a").premia == 50


def test_vector_11_rule_6_fulfilled_pass_keeps_the_premia() -> None:
    s = settle({"g": [50, 100, 150, 200], "n": NIKA, "a": ANA, "l": LEVAN}).of("g")
    assert s.qualified and s.premia == 200 and s.result == 700


def test_vector_12_rule_6_pass_with_a_trick_loses_the_premia() -> None:
    pass_failed = HandOutcome(bid=0, took=1, cards=9)
    assert not pass_failed.fulfilled and not pass_failed.khishti
    players = ["g", "n", "a", "l"]
    hands = [{p: outcome(100) for p in players} for _ in range(3)]
    hands.append({"g": pass_failed, "n": outcome(100), "a": outcome(100), "l": outcome(100)})
    settled = settle_pulka(players, hands)
    assert settled.of("g").hand_scores[3] == 10
    assert not settled.of("g").qualified and settled.of("g").premia == 0


@pytest.mark.parametrize("penalty", [-200, -500, -1000])
def test_vector_13_rule_8_khishti_is_never_the_best_hand(penalty: int) -> None:
    rows: dict[str, Sequence[Cell]] = {"g": GIORGI, "x": [100, K, 150, 50], "a": ANA, "l": LEVAN}
    s = settle(rows, Options(khishti=Khishti.flat(penalty))).of("x")
    assert s.moshla == -150 and s.crossed_out == 2
    assert s.result == 300 + penalty - 150


def test_vector_14_oq1_only_khishti_hands_moshla_zero() -> None:
    s = settle({"g": GIORGI, "x": [K] * 4, "a": ANA, "l": LEVAN}).of("x")
    assert s.charged and s.moshla == 0 and s.crossed_out is None
    assert s.result == 4 * -200


def test_vector_17_oq6_premia_off_no_entries() -> None:
    settled = settle(
        {"giorgi": GIORGI, "nika": NIKA, "ana": ANA, "levan": LEVAN},
        Options(premia=False, moshla=True),
    )
    assert all(s.premia == 0 and s.moshla == 0 for s in settled.players)
    assert settled.of("giorgi").result == 700 and settled.of("nika").result == 470


def test_vector_18_premia_on_moshla_off() -> None:
    settled = settle(
        {"giorgi": GIORGI, "nika": NIKA, "ana": ANA, "levan": LEVAN}, Options(moshla=False)
    )
    assert settled.of("giorgi").result == 950
    assert settled.of("nika").result == 470 and settled.of("nika").crossed_out is None


def test_rule_4_5_any_failed_hand_or_khishti_disqualifies() -> None:
    for bad in ("f10", "f30", K):
        s = settle({"g": [100, 100, bad, 100], "n": NIKA, "a": ANA, "l": LEVAN}).of("g")
        assert not s.qualified and s.premia == 0
    too_many = HandOutcome(bid=1, took=3, cards=9)
    assert not too_many.fulfilled


def test_rule_9_oq1_failed_non_khishti_hand_can_be_the_best() -> None:
    s = settle({"g": GIORGI, "x": ["f30", K, "f20", "f10"], "a": ANA, "l": LEVAN}).of("x")
    assert s.moshla == -30 and s.crossed_out == 0


def test_rule_13_premia_taker_is_never_charged() -> None:
    settled = settle({"g": GIORGI, "n": NIKA, "a": [50] * 4, "l": LEVAN})
    for name in ("g", "a"):
        assert settled.of(name).premia > 0 and settled.of(name).moshla == 0


def test_rule_14_15_oq5_result_is_sum_plus_premia_plus_moshla_no_double_deduction() -> None:
    settled = settle({"giorgi": GIORGI, "nika": NIKA, "ana": ANA, "levan": LEVAN})
    for s in settled.players:
        assert s.result == sum(s.hand_scores) + s.premia + s.moshla
    assert settled.of("nika").result == 170  # not 470 - 300 - 300


def test_oq2_earliest_of_two_equal_best_hands_is_crossed_out() -> None:
    s = settle({"g": GIORGI, "x": [100, 250, "f20", 250], "a": ANA, "l": LEVAN}).of("x")
    assert s.crossed_out == 1 and s.moshla == -250


def test_rule_21_defaults_premia_on_moshla_on_others_deducted() -> None:
    options = Options()
    assert options.premia and options.moshla
    assert options.multi_premia is MultiPremia.OTHERS_DEDUCTED
    assert options.khishti == Khishti.flat(-200)


def test_rule_10_one_qualifier_charges_each_of_the_other_three() -> None:
    settled = settle({"giorgi": GIORGI, "nika": NIKA, "ana": ANA, "levan": LEVAN})
    assert [s.charged for s in settled.players] == [False, True, True, True]
    assert [s.moshla for s in settled.players] == [0, -300, -150, -250]
