"""Seed 002 rules 1, 6-24 and 56 (implementation reading), test vectors 1-7, 24-30, 34."""

from __future__ import annotations

import copy

import pytest

from croupier.kit.scenario import MalformedScenario
from croupier.poker.adapters.evaluator import RANKS
from croupier.poker.core import history
from croupier.poker.core.deal import start_hand
from croupier.poker.core.hand import apply, legal_actions, timeout_action, view
from croupier.poker.core.pots import Pot, award, layers, split
from croupier.poker.core.rules import IllegalAction, TableConfig
from croupier.poker.core.state import HandState
from tests.support.poker import doc, run, state_after

THREE = [("btn", 100), ("s", 100), ("g", 100)]


def test_rule_1_a_card_cannot_appear_twice() -> None:
    d = doc([("a", 100), ("b", 100)], "a", hole={"a": ["As", "Ah"], "b": ["As", "Kd"]})
    with pytest.raises(MalformedScenario):
        run_scenario_doc(d)


def run_scenario_doc(d: dict[str, object]) -> dict[str, object]:
    from croupier.poker.tools.conformance import run_scenario

    return run_scenario(dict(d))


def test_rules_6_7_vector_26_three_players_blinds_and_order() -> None:
    s = state_after(THREE, "btn")
    assert s.bets == [0, 1, 2]  # rule 6: small blind left of the button, big blind next
    order = []
    for _ in range(3):
        order.append(s.player_to_act)
        p = s.player_to_act
        assert p is not None
        s, _ = apply(s, p, {"action": "call"} if p != "g" else {"action": "check"})
    assert order == ["btn", "s", "g"]  # rule 7: preflop starts left of the big blind
    assert len(s.board) == 3
    order = []
    for _ in range(3):
        p = s.player_to_act
        assert p is not None
        order.append(p)
        s, _ = apply(s, p, {"action": "check"})
    assert order == ["s", "g", "btn"]  # rule 7: postflop starts left of the button


def test_rule_9_vector_25_heads_up_button_posts_small_blind_and_acts_first() -> None:
    s = state_after([("a", 100), ("b", 100)], "a")
    assert s.bets == [1, 2]
    assert s.player_to_act == "a"
    s = state_after([("a", 100), ("b", 100)], "a", [("a", "call"), ("b", "check")])
    assert s.player_to_act == "b"  # the big blind acts first after the flop
    s, _ = apply(s, "b", {"action": "check"})
    assert s.player_to_act == "a"


def test_rule_8_action_skips_folded_and_all_in_players() -> None:
    players = [("a", 10), ("b", 100), ("c", 100), ("d", 100)]
    s = state_after(players, "a", [("d", "fold"), ("a", "allin"), ("b", "call"), ("c", "call")])
    assert len(s.board) == 3
    assert s.player_to_act == "b"
    s, _ = apply(s, "b", {"action": "check"})
    assert s.player_to_act == "c"
    s, _ = apply(s, "c", {"action": "check"})
    assert len(s.board) == 4  # a (all-in) and d (folded) were skipped
    assert s.player_to_act == "b"


def test_rule_10_vector_27_short_big_blind_posts_all_in_and_oq2_full_blind_is_owed() -> None:
    s = state_after([("btn", 100), ("s", 100), ("g", 1)], "btn")
    assert s.bets == [0, 1, 1]
    assert s.stacks[2] == 0  # all-in with the blind
    legal = legal_actions(s, "btn")
    assert legal["call"] == 2  # OQ 2: the full big blind
    assert legal["min_raise_to"] == 4  # and the full increment
    # the table option matching PokerKit: match only what was posted
    cfg = TableConfig(short_big_blind="posted")
    s2 = start_hand(
        cfg,
        [("btn", 100), ("s", 100), ("g", 1)],
        0,
        [[0, 1], [2, 3], [4, 5]],
        list(range(6, 52)),
        ranks=RANKS,
    )
    assert legal_actions(s2, "btn")["call"] == 1
    assert legal_actions(s2, "btn")["min_raise_to"] == 3


def test_rule_11_oq1_big_blind_option_after_limps() -> None:
    s = state_after(THREE, "btn", [("btn", "call"), ("s", "call")])
    assert s.player_to_act == "g"
    assert s.board == []
    legal = legal_actions(s, "g")
    assert "check" in legal["actions"] and "raise" in legal["actions"]
    s2, _ = apply(s, "g", {"action": "raise", "to": 8})
    assert s2.player_to_act == "btn" and s2.board == []
    s3, _ = apply(s, "g", {"action": "check"})
    assert len(s3.board) == 3


def test_rule_12_oq12_everyone_folds_no_cards_shown_no_board() -> None:
    out = run(THREE, "btn", [("btn", "raise", 6), ("s", "fold"), ("g", "fold")])
    assert out["status"] == "complete"
    assert out["board"] == []
    assert out["returned"] == {"btn": 4}
    assert out["winnings"] == {"btn": 5}
    assert out["pots"] == [{"amount": 5, "eligible": ["btn"], "winners": ["btn"]}]
    assert out["shown"] == {}
    assert out["stacks"] == {"btn": 103, "s": 99, "g": 98}


def _flop_facing_40(variant: str, b_stack: int) -> HandState:
    """Vector 1 setting: pot 100 before the flop round, A bets 40, B has put in 0 this round."""
    return state_after(
        [("a", 1000), ("b", 50 + b_stack)],
        "a",
        [("a", "raise", 50), ("b", "call"), ("b", "check"), ("a", "bet", 40)],
        variant=variant,
        blinds=(10, 20),
    )


def test_rule_13_vector_4_no_limit_max_is_the_stack() -> None:
    s = _flop_facing_40("nlhe", 500)
    assert sum(s.contrib) == 140
    legal = legal_actions(s, "b")
    assert (legal["call"], legal["min_raise_to"], legal["max_raise_to"]) == (40, 80, 500)


def test_rule_17_vector_1_pot_limit_max_raise_to_220() -> None:
    legal = legal_actions(_flop_facing_40("plo", 300), "b")
    assert (legal["call"], legal["min_raise_to"], legal["max_raise_to"]) == (40, 80, 220)


def test_rule_17_vector_2_pot_limit_capped_by_stack_150() -> None:
    legal = legal_actions(_flop_facing_40("plo", 150), "b")
    assert (legal["min_raise_to"], legal["max_raise_to"]) == (80, 150)
    assert "allin" in legal["actions"]


def test_rule_16_vector_3_short_all_in_does_not_reopen() -> None:
    s = _flop_facing_40("plo", 70)
    legal = legal_actions(s, "b")
    assert legal["actions"] == ["fold", "call", "raise", "allin"]
    assert legal["min_raise_to"] == 70  # only the all-in below the minimum
    with pytest.raises(IllegalAction) as exc:
        apply(s, "b", {"action": "raise", "to": 60})
    assert exc.value.reason == "below_minimum"
    s, _ = apply(s, "b", {"action": "allin"})
    assert legal_actions(s, "a")["actions"] == ["fold", "call"]  # increment 30 < 40
    with pytest.raises(IllegalAction) as exc:
        apply(s, "a", {"action": "raise", "to": 200})
    assert exc.value.reason == "raising_closed"


def test_rule_17_vector_6_pot_limit_preflop() -> None:
    s = state_after(THREE, "btn", variant="plo")
    assert legal_actions(s, "btn")["max_raise_to"] == 7
    s = state_after(THREE, "btn", [("btn", "raise", 7), ("s", "fold")], variant="plo")
    legal = legal_actions(s, "g")
    assert (legal["call"], legal["max_raise_to"]) == (5, 22)


def test_rule_17_vector_7_pot_limit_no_bet_max_is_pot_min_is_big_blind() -> None:
    s = state_after(
        [("a", 1000), ("b", 1000)],
        "a",
        [("a", "raise", 30), ("b", "call")],
        variant="plo",
        blinds=(5, 10),
    )
    assert sum(s.contrib) == 60
    legal = legal_actions(s, "b")
    assert legal["actions"] == ["fold", "check", "bet", "allin"][:3] or "bet" in legal["actions"]
    assert (legal["min_raise_to"], legal["max_raise_to"]) == (10, 60)
    with pytest.raises(IllegalAction) as exc:
        apply(s, "b", {"action": "bet", "to": 61})
    assert exc.value.reason == "above_maximum"


def test_rule_14_min_bet_is_big_blind_unless_all_in() -> None:
    s = state_after([("a", 100), ("b", 100)], "a", [("a", "call"), ("b", "check")])
    with pytest.raises(IllegalAction) as exc:
        apply(s, "b", {"action": "bet", "to": 1})
    assert exc.value.reason == "below_minimum"
    s, _ = apply(s, "b", {"action": "bet", "to": 2})
    assert s.current_bet == 2
    short = state_after([("a", 100), ("b", 3)], "a", [("a", "call"), ("b", "check")])
    short, _ = apply(short, "b", {"action": "bet", "to": 1})  # all-in below the big blind
    assert short.stacks[1] == 0


def test_rule_15_min_raise_is_last_full_increment() -> None:
    s = state_after(THREE, "btn", [("btn", "raise", 6)])
    assert legal_actions(s, "s")["min_raise_to"] == 10
    s, _ = apply(s, "s", {"action": "raise", "to": 10})
    assert legal_actions(s, "g")["min_raise_to"] == 14
    s = state_after(
        THREE,
        "btn",
        [("btn", "call"), ("s", "call"), ("g", "check"), ("s", "bet", 10), ("g", "raise", 30)],
    )
    assert legal_actions(s, "btn")["min_raise_to"] == 50


def test_rule_16_short_all_in_only_call_or_fold_for_who_already_acted() -> None:
    players = [("a", 100), ("b", 100), ("c", 15)]
    s = state_after(
        players,
        "a",
        [("a", "call"), ("b", "call"), ("c", "check"), ("b", "bet", 10), ("c", "allin")],
    )
    assert s.current_bet == 13
    assert legal_actions(s, "a")["actions"] == ["fold", "call", "raise", "allin"]  # not acted
    s, _ = apply(s, "a", {"action": "call"})
    assert legal_actions(s, "b")["actions"] == ["fold", "call"]


@pytest.mark.parametrize(("d_stack", "reopened"), [(23, True), (21, False)])
def test_rule_16_oq3_cumulative_short_all_ins(d_stack: int, reopened: bool) -> None:
    players = [("a", 100), ("b", 100), ("c", 14), ("d", d_stack)]
    s = state_after(
        players,
        "a",
        [
            ("d", "call"),
            ("a", "call"),
            ("b", "call"),
            ("c", "check"),
            ("b", "bet", 10),
            ("c", "allin"),
            ("d", "allin"),
            ("a", "call"),
        ],
    )
    # b bet 10; all-ins to 12 then to d_stack - 2: 21 (total increase 11 >= 10) or 19 (9 < 10)
    assert ("raise" in legal_actions(s, "b")["actions"]) is reopened


def test_rule_18_legal_actions_are_published_for_the_actor_only() -> None:
    s = state_after(THREE, "btn")
    assert legal_actions(s, "btn") == {
        "actions": ["fold", "call", "raise", "allin"],
        "call": 2,
        "min_raise_to": 4,
        "max_raise_to": 100,
    }
    assert legal_actions(s, "s")["actions"] == []


@pytest.mark.parametrize(
    ("actions", "action", "reason"),
    [
        ([], {"player": "s", "action": "call"}, "not_your_turn"),
        ([], {"player": "zed", "action": "call"}, "unknown_player"),
        ([], {"player": "btn", "action": "check"}, "cannot_check"),
        ([], {"player": "btn", "action": "bet", "to": 10}, "bet_facing_bet"),
        ([], {"player": "btn", "action": "raise", "to": 3}, "below_minimum"),
        ([], {"player": "btn", "action": "raise", "to": 101}, "exceeds_stack"),
        ([], {"player": "btn", "action": "raise"}, "missing_amount"),
        ([], {"player": "btn", "action": "shove"}, "unknown_action"),
        (
            [("btn", "call"), ("s", "call"), ("g", "check")],
            {"player": "s", "action": "call"},
            "nothing_to_call",
        ),
        (
            [("btn", "call"), ("s", "call"), ("g", "check")],
            {"player": "s", "action": "raise", "to": 4},
            "nothing_to_raise",
        ),
        ([("btn", "fold"), ("s", "fold")], {"player": "g", "action": "check"}, "hand_over"),
    ],
)
def test_rule_18_illegal_actions_rejected_with_reason_state_unchanged(
    actions: list[tuple[str, str]], action: dict[str, object], reason: str
) -> None:
    s = state_after(THREE, "btn", actions)
    before = (history.record(s), view(s, None), copy.deepcopy(s.result))
    with pytest.raises(IllegalAction) as exc:
        apply(s, str(action["player"]), action)
    assert exc.value.reason == reason
    assert exc.value.message
    assert (history.record(s), view(s, None), s.result) == before


def test_rule_18_pot_limit_raise_above_maximum_rejected() -> None:
    s = state_after(THREE, "btn", variant="plo")
    with pytest.raises(IllegalAction) as exc:
        apply(s, "btn", {"action": "raise", "to": 8})
    assert exc.value.reason == "above_maximum"
    with pytest.raises(IllegalAction) as exc:
        apply(s, "btn", {"action": "allin"})
    assert exc.value.reason == "above_maximum"


def test_rules_19_23_vector_28_side_pots_by_layer() -> None:
    out = run(
        [("a", 50), ("b", 200), ("c", 300)],
        "c",
        [("c", "raise", 200), ("a", "allin"), ("b", "call")],
        hole={"a": ["As", "Ah"], "b": ["Ks", "Kh"], "c": ["Qs", "Qh"]},
        board=["2c", "7d", "9h", "Jc", "3s"],
    )
    assert out["pots"] == [
        {"amount": 150, "eligible": ["a", "b", "c"], "winners": ["a"]},
        {"amount": 300, "eligible": ["b", "c"], "winners": ["b"]},
    ]
    assert out["stacks"] == {"a": 150, "b": 300, "c": 100}
    assert out["returned"] == {}


def test_rule_20_vector_29_uncalled_bet_returned_not_won() -> None:
    out = run(
        [("a", 500), ("b", 300), ("c", 100)],
        "a",
        [("a", "fold"), ("b", "allin"), ("c", "call")],
        hole={"a": ["2s", "3h"], "b": ["Ks", "Kh"], "c": ["As", "Ah"]},
        board=["2c", "7d", "9h", "Jc", "4s"],
    )
    assert out["returned"] == {"b": 200}
    assert out["pots"] == [{"amount": 200, "eligible": ["b", "c"], "winners": ["c"]}]
    assert out["winnings"] == {"c": 200}
    assert out["stacks"] == {"a": 500, "b": 200, "c": 200}


def test_rule_21_automatic_run_out_when_nobody_can_act() -> None:
    out = run([("a", 50), ("b", 80)], "a", [("a", "allin"), ("b", "call")])
    assert out["status"] == "complete"
    assert len(out["board"]) == 5
    s = state_after(
        [("a", 100), ("b", 40), ("c", 100)],
        "a",
        [
            ("a", "call"),
            ("b", "allin"),
            ("c", "call"),
            ("a", "call"),
            ("c", "bet", 10),
            ("a", "call"),
            ("c", "allin"),
            ("a", "call"),
        ],
    )
    assert s.is_complete and len(s.board) == 5


def test_rule_21_lone_player_with_chips_matched_gets_no_action() -> None:
    s = state_after([("a", 100), ("b", 2)], "a", [("a", "call")])
    assert s.is_complete  # the big blind is all-in and matched: no option to take
    assert len(s.board) == 5


def test_rule_22_showdown_reveals_remaining_hands_and_views_hide_cards() -> None:
    players = [("a", 100), ("b", 100), ("c", 100)]
    s = state_after(players, "a", [("a", "fold")])
    v = view(s, "b")
    seen = {seat["player"]: seat.get("hole_cards") for seat in v["seats"]}
    assert seen["a"] is None and seen["c"] is None and seen["b"] is not None
    assert all("hole_cards" not in seat for seat in view(s, None)["seats"])
    s, _ = apply(s, "b", {"action": "call"})
    for _ in range(7):
        p = s.player_to_act
        if p is None:
            break
        s, _ = apply(s, p, {"action": "check"})
    assert s.is_complete and s.result is not None
    assert set(s.result["shown"]) == {"b", "c"}  # the folded hand is not shown
    seen = {seat["player"]: seat.get("hole_cards") for seat in view(s, None)["seats"]}
    assert seen["a"] is None and seen["b"] and seen["c"]


def test_rules_23_24_vector_34_board_plays_split_odd_chip_left_of_button() -> None:
    out = run(
        [("btn", 100), ("s", 100), ("g", 100)],
        "btn",
        [
            ("btn", "call"),
            ("s", "fold"),
            ("g", "check"),
            ("g", "check"),
            ("btn", "check"),
            ("g", "check"),
            ("btn", "check"),
            ("g", "check"),
            ("btn", "check"),
        ],
        board=["As", "Ks", "Qs", "Js", "Ts"],
    )
    assert out["pots"] == [{"amount": 5, "eligible": ["g", "btn"], "winners": ["g", "btn"]}]
    assert out["winnings"] == {"g": 3, "btn": 2}


def test_rule_24_vector_30_odd_chips_clockwise_from_button_per_pot() -> None:
    def order(button: int) -> list[int]:
        return sorted(range(6), key=lambda i: (i - button - 1) % 6)

    values = {2: 9, 4: 9, 0: 1, 1: 1, 3: 1, 5: 1}  # seats 3 and 5 (indices 2, 4) tie
    for button, first in ((5, 2), (3, 4)):  # button at seat 6, then at seat 4
        eligible = tuple(i for i in order(button))
        (pot,) = award([Pot(101, eligible)], values.__getitem__)
        shares = dict(zip(pot.winners, pot.shares, strict=True))
        assert shares[first] == 51 and sum(shares.values()) == 101
    assert split(100, [4, 0, 2]) == (34, 33, 33)
    # separately for each pot: two layers with 1 odd chip each both go to the first winner
    contrib = [50, 50, 3, 1, 48]
    live = [True, True, True, False, False]
    pots = award(layers(contrib, live, [0, 1, 2, 3, 4]), lambda i: 5 if i < 2 else 1)
    assert [(p.amount, p.shares) for p in pots] == [(13, (7, 6)), (139, (70, 69))]


def test_rule_56_vector_24_timeout_checks_else_folds() -> None:
    s = state_after(THREE, "btn")
    assert timeout_action(s, "btn") == {"action": "fold"}
    s = state_after(THREE, "btn", [("btn", "call"), ("s", "call")])
    assert timeout_action(s, "g") == {"action": "check"}


def test_apply_never_changes_the_given_state() -> None:
    s = state_after(THREE, "btn")
    snapshot = history.record(s)
    s2, events = apply(s, "btn", {"action": "raise", "to": 6})
    assert history.record(s) == snapshot
    assert s2 is not s and s2.bets != s.bets
    assert events[0] == {"type": "action", "player": "btn", "action": "raise", "to": 6, "amount": 6}


def test_result_deltas_are_exact_and_sum_to_zero() -> None:
    s = state_after(
        [("a", 37), ("b", 91), ("c", 64)], "b", [("b", "allin"), ("c", "call"), ("a", "call")]
    )
    assert s.result is not None
    assert sum(s.result["deltas"].values()) == 0
    assert all(isinstance(v, int) for v in s.result["deltas"].values())


def test_rule_12_finished_hand_view_shows_the_settled_pot() -> None:
    s = state_after(THREE, "btn", [("btn", "raise", 6), ("s", "fold"), ("g", "fold")])
    assert s.result is not None
    assert view(s, "g")["pots"] == s.result["pots"]
    assert view(s, "g")["to_act"] is None
