"""Naiko mode: seed 002 rules 4, 25-49, test vectors 1, 5, 8-23 and 35."""

from __future__ import annotations

from typing import Any

import pytest

from croupier.game.fairness import FairStream
from croupier.poker.adapters.evaluator import RANKS
from croupier.poker.core import cards as C
from croupier.poker.core import naiko
from croupier.poker.core.deal import deal_from_seed
from croupier.poker.core.hand import apply, legal_actions, timeout_action, view
from croupier.poker.core.rules import IllegalAction, TableConfig
from croupier.poker.core.state import HandState
from tests.support.poker import doc, run, state_after

NAIKO = {"variant": "naiko"}
FOUR = [("a", 100), ("b", 100), ("c", 100), ("d", 100)]
# Button a: b posts the small blind, c the big blind; preflop order d, a, b, c; later b, c, d, a.
LIMPS = [("d", "call"), ("a", "call"), ("b", "call"), ("c", "check")]


def rejected(state: HandState, player: str, action: dict[str, Any], reason: str) -> None:
    before = (view(state, None), naiko.private(state), state.naiko)
    with pytest.raises(IllegalAction) as exc:
        apply(state, player, action)
    assert exc.value.reason == reason
    assert (view(state, None), naiko.private(state), state.naiko) == before  # rule 34


def balances(state: HandState) -> dict[str, int]:
    assert state.naiko is not None
    return dict(zip(state.ids, state.naiko.destellos, strict=True))


def test_rule_4_powers_rejected_outside_naiko() -> None:
    s = state_after(FOUR, "a")
    rejected(s, "d", {"action": "power", "power": "peek"}, "powers_not_available")
    rejected(s, "d", {"action": "seal"}, "powers_not_available")


def test_rule_25_vector_13_destellos_gain_one_per_hand_capped_at_three() -> None:
    seen = []
    balance = 0
    for _ in range(4):  # dealt into hands 1-4, no powers used
        s = state_after(FOUR, "a", destellos={"d": balance}, **NAIKO)
        balance = balances(s)["d"]
        seen.append(balance)
    assert seen == [1, 2, 3, 3]
    # Sleeve Swap in hand 3 (3 -> 1): hand 4 starts with 2
    s = state_after(
        FOUR,
        "a",
        [("d", "power", "swap", "Kc")],
        destellos={"d": 2},
        hole={"d": ["Kc", "Kd"]},
        **NAIKO,
    )
    assert balances(s)["d"] == 1
    s = state_after(FOUR, "a", destellos={"d": balances(s)["d"]}, **NAIKO)
    assert balances(s)["d"] == 2


def test_rule_29_vector_12_carousel_always_has_anchor() -> None:
    config = TableConfig(variant="naiko")
    seen = set()
    for i in range(300):
        seed = FairStream(bytes(32), "test").below(2**64).to_bytes(8, "big") * 4
        seed = (i.to_bytes(4, "big") + seed)[:32]
        s = deal_from_seed(config, FOUR, 0, seed, ranks=RANKS)
        assert s.naiko is not None
        seen.add(s.naiko.carousel)
        assert "anchor" in s.naiko.carousel and len(s.naiko.carousel) == 3
    assert frozenset({"peek", "swap", "seal"}) not in seen
    assert seen == set(naiko.LEGAL_CAROUSELS)
    with pytest.raises(ValueError):
        naiko.start(2, [0, 0], frozenset({"peek", "swap", "seal"}))


def test_rules_36_37_vector_8_peek_on_flop_shows_the_turn() -> None:
    out = run(
        FOUR,
        "a",
        [
            *LIMPS,
            ("b", "power", "peek"),
            ("b", "check"),
            ("c", "check"),
            ("d", "check"),
            ("a", "check"),
        ],
        board=["2h", "7h", "9c", "Th", "3d"],
        destellos={"b": 0},
        **NAIKO,
    )
    assert out["private"] == {"b": {"peeked": "Th"}}
    assert out["board"][3] == "Th"
    assert out["destellos"]["b"] == 0


def test_rule_40_vector_9_sleeve_swap_replaces_with_stub_top() -> None:
    out = run(
        FOUR,
        "a",
        [("d", "power", "swap", "2d")],
        hole={"d": ["7c", "2d"]},
        board=["Ad", "5s", "6s", "7s", "8h"],
        destellos={"d": 1},
        **NAIKO,
    )
    assert out["error"] is None
    assert out["private"] == {"d": {"swapped_in": "Ad"}}
    s = state_after(
        FOUR,
        "a",
        [("d", "power", "swap", "2d")],
        hole={"d": ["7c", "2d"]},
        board=["Ad", "5s", "6s", "7s", "8h"],
        destellos={"d": 1},
        **NAIKO,
    )
    assert C.names(s.hole[3]) == ["7c", "Ad"]
    assert {"player": "d", "hole_cards": ["7c", "Ad"]}.items() <= view(s, "d")["seats"][3].items()
    assert "hole_cards" not in view(s, "a")["seats"][3]


def test_rule_38_vector_10_preflop_peek_then_swap_takes_that_card() -> None:
    out = run(
        FOUR,
        "a",
        [
            ("d", "power", "peek"),
            ("d", "call"),
            ("a", "power", "swap", "2d"),
            ("a", "call"),
            ("b", "call"),
            ("c", "check"),
        ],
        hole={"a": ["7c", "2d"]},
        board=["Qs", "Jd", "Tc", "9h", "4c"],
        destellos={"a": 1},
        **NAIKO,
    )
    assert out["private"] == {"d": {"peeked": "Qs"}, "a": {"swapped_in": "Qs"}}
    assert out["board"][:3] == ["Jd", "Tc", "9h"]


def test_rule_39_vector_19_swap_timing() -> None:
    # the big blind on his first turn (only his blind posted) may swap
    s = state_after(
        FOUR,
        "a",
        [("d", "call"), ("a", "call"), ("b", "call"), ("c", "power", "swap", "Kc")],
        hole={"c": ["Kc", "Kd"]},
        destellos={"c": 1},
        **NAIKO,
    )
    assert s.naiko is not None and s.naiko.swapped_in[2] is not None
    # a limper facing a raise: swap rejected, peek allowed
    s = state_after(
        FOUR,
        "a",
        [("d", "call"), ("a", "call"), ("b", "raise", 8), ("c", "call")],
        hole={"d": ["Kc", "Kd"]},
        destellos={"d": 2},
        **NAIKO,
    )
    rejected(s, "d", {"action": "power", "power": "swap", "card": "Kc"}, "wrong_timing")
    s, _ = apply(s, "d", {"action": "power", "power": "peek"})
    s, _ = apply(s, "d", {"action": "call"})
    # flop: swap no longer possible
    s2 = state_after(FOUR, "a", LIMPS, destellos={"b": 2}, hole={"b": ["Kc", "Kd"]}, **NAIKO)
    rejected(s2, "b", {"action": "power", "power": "swap", "card": "Kc"}, "wrong_timing")
    s3 = state_after(FOUR, "a", [], destellos={"d": 2}, hole={"d": ["Kc", "Kd"]}, **NAIKO)
    rejected(s3, "d", {"action": "power", "power": "swap", "card": "As"}, "not_your_card")


def test_rule_36_vector_20_no_peek_on_river() -> None:
    checks = [(p, "check") for _ in range(2) for p in ("b", "c", "d", "a")]
    s = state_after(FOUR, "a", LIMPS + checks, destellos={"b": 1}, **NAIKO)
    assert len(s.board) == 5
    rejected(s, "b", {"action": "power", "power": "peek"}, "wrong_street")


def test_rule_34_vector_14_one_destello_swap_and_anchor_rejected_peek_allowed() -> None:
    s = state_after(FOUR, "a", [("d", "call")], hole={"a": ["Kc", "Kd"]}, **NAIKO)
    assert balances(s)["a"] == 1
    rejected(s, "a", {"action": "power", "power": "swap", "card": "Kc"}, "not_enough_destellos")
    rejected(s, "a", {"action": "power", "power": "anchor", "target": "b"}, "not_enough_destellos")
    s, _ = apply(s, "a", {"action": "power", "power": "peek"})
    assert balances(s)["a"] == 0


def test_rules_30_31_32_vector_18_one_power_per_turn_once_per_hand_in_carousel() -> None:
    s = state_after(FOUR, "a", [("d", "power", "peek")], destellos={"d": 3}, **NAIKO)
    rejected(s, "d", {"action": "power", "power": "anchor", "target": "a"}, "one_power_per_turn")
    s, _ = apply(s, "d", {"action": "call"})
    s = state_after(
        FOUR,
        "a",
        [("d", "power", "peek"), ("d", "call"), ("a", "call"), ("b", "call"), ("c", "check")],
        destellos={"d": 3},
        **NAIKO,
    )
    s, _ = apply(s, "b", {"action": "check"})
    s, _ = apply(s, "c", {"action": "check"})
    rejected(s, "d", {"action": "power", "power": "peek"}, "power_already_used")
    s3 = state_after(FOUR, "a", destellos={"d": 3}, carousel=["peek", "anchor", "seal"], **NAIKO)
    rejected(
        s3,
        "d",
        {"action": "power", "power": "swap", "card": C.name(s3.hole[3][0])},
        "power_not_in_carousel",
    )
    rejected(s3, "a", {"action": "power", "power": "peek"}, "not_your_turn")


def _anchored_flop(carousel: list[str], destellos: dict[str, int]) -> HandState:
    """Vector 1: pot 100 before the flop round; a anchors b, then bets 40."""
    players = [("a", 1000), ("b", 2500), ("c", 1000), ("d", 1000)]
    pre = [("c", "raise", 25), ("d", "call"), ("a", "call"), ("b", "call")]
    return state_after(
        players,
        "d",
        [*pre, ("a", "power", "anchor", "b")],
        blinds=(5, 10),
        destellos=destellos,
        carousel=carousel,
        **NAIKO,
    )


def test_rule_42_vectors_1_5_anchored_target_plays_pot_limit() -> None:
    s = _anchored_flop(["peek", "swap", "anchor"], {"a": 1})
    assert sum(s.contrib) == 100
    assert balances(s)["a"] == 0  # rule 35: paid at once
    s, _ = apply(s, "a", {"action": "bet", "to": 40})
    legal = legal_actions(s, "b")
    assert (legal["call"], legal["min_raise_to"], legal["max_raise_to"]) == (40, 80, 220)
    rejected(s, "b", {"action": "raise", "to": 221}, "above_maximum")
    s, _ = apply(s, "b", {"action": "raise", "to": 220})
    assert legal_actions(s, "c")["max_raise_to"] == 1000 - 25  # c is not anchored
    s, _ = apply(s, "c", {"action": "raise", "to": 600})
    s, _ = apply(s, "d", {"action": "fold"})
    s, _ = apply(s, "a", {"action": "fold"})
    legal = legal_actions(s, "b")
    assert (legal["call"], legal["max_raise_to"]) == (380, 1940)  # vector 5
    s, _ = apply(s, "b", {"action": "call"})
    # rule 44: the Anchor ends with the betting round
    assert len(s.board) == 4 and not any(s.pot_capped)


def test_rule_46_47_vector_15_seal_voids_anchor_and_target_cannot_be_anchored_again() -> None:
    s = _anchored_flop(["peek", "anchor", "seal"], {"a": 2, "b": 1, "c": 2})
    assert balances(s) == {"a": 1, "b": 2, "c": 3, "d": 1}
    assert s.player_to_act == "b"  # the response window
    assert legal_actions(s, "b")["actions"] == ["seal", "no_seal"]
    assert legal_actions(s, "a")["actions"] == []
    rejected(s, "a", {"action": "bet", "to": 40}, "awaiting_anchor_answer")  # OQ 18
    rejected(s, "c", {"action": "seal"}, "not_the_anchor_target")
    s, _ = apply(s, "b", {"action": "seal"})
    assert balances(s) == {"a": 1, "b": 1, "c": 3, "d": 1}
    s, _ = apply(s, "a", {"action": "bet", "to": 40})
    assert legal_actions(s, "b")["max_raise_to"] == 2500 - 25  # no-limit kept
    s, _ = apply(s, "b", {"action": "call"})
    rejected(s, "c", {"action": "power", "power": "anchor", "target": "b"}, "bad_target")
    rejected(s, "c", {"action": "power", "power": "anchor", "target": "a"}, "bad_target")


def test_rule_45_target_anchored_once_per_round_even_if_sealed() -> None:
    players = [("a", 1000), ("b", 1000), ("c", 1000), ("d", 1000)]
    s = state_after(
        players,
        "a",
        [*LIMPS, ("b", "power", "anchor", "d"), ("d", "seal"), ("b", "check")],
        destellos={"b": 2, "c": 2, "d": 2},
        carousel=["peek", "anchor", "seal"],
        **NAIKO,
    )
    rejected(s, "c", {"action": "power", "power": "anchor", "target": "d"}, "already_anchored")


def test_rule_48_vector_16_no_seal_applies_anchor_target_pays_nothing() -> None:
    s = _anchored_flop(["peek", "anchor", "seal"], {"a": 2, "b": 1})
    assert timeout_action(s, "b") == {"action": "no_seal"}
    s, _ = apply(s, "b", {"action": "no_seal"})
    assert balances(s)["a"] == 1 and balances(s)["b"] == 2
    s, _ = apply(s, "a", {"action": "bet", "to": 40})
    assert legal_actions(s, "b")["max_raise_to"] == 220


def test_rule_46_no_window_when_target_cannot_seal() -> None:
    s = _anchored_flop(["peek", "anchor", "seal"], {"a": 2})
    # b has 1 Destello and the Seal: window. Without the Seal in the Carousel: none.
    assert s.player_to_act == "b"
    s = _anchored_flop(["peek", "swap", "anchor"], {"a": 2})
    assert s.player_to_act == "a"
    rejected(s, "b", {"action": "seal"}, "no_anchor_to_answer")
    rejected(s, "b", {"action": "no_seal"}, "no_anchor_to_answer")


def test_rule_33_vector_17_three_regular_activations_per_round_seal_still_allowed() -> None:
    players = [(f"p{i}", 1000) for i in range(1, 7)]
    pre = [
        ("p3", "call"),
        ("p4", "call"),
        ("p5", "call"),
        ("p6", "call"),
        ("p1", "call"),
        ("p2", "check"),
    ]
    flop = [
        ("p1", "power", "peek"),
        ("p1", "check"),
        ("p2", "check"),
        ("p3", "power", "peek"),
        ("p3", "check"),
        ("p4", "power", "anchor", "p5"),
    ]
    s = state_after(
        players,
        "p6",
        pre + flop,
        carousel=["peek", "anchor", "seal"],
        destellos={p: 2 for p, _ in players},
        **NAIKO,
    )
    assert s.naiko is not None and s.naiko.activations == 3
    s, _ = apply(s, "p5", {"action": "seal"})  # the Seal is never refused by the limit
    s, _ = apply(s, "p4", {"action": "check"})
    s, _ = apply(s, "p5", {"action": "check"})
    rejected(s, "p6", {"action": "power", "power": "peek"}, "round_limit_reached")
    s, _ = apply(s, "p6", {"action": "check"})
    s, _ = apply(s, "p1", {"action": "check"})  # turn: the counter starts again
    s, _ = apply(s, "p2", {"action": "power", "power": "peek"})


def test_rule_41_vector_21_anchor_targets_must_not_have_acted_folded_or_be_all_in() -> None:
    players = [("a", 100), ("b", 100), ("c", 10), ("d", 100)]
    s = state_after(
        players, "a", [("d", "call"), ("a", "fold"), ("b", "call")], destellos={"c": 2}, **NAIKO
    )
    # c (the big blind) to act: b already acted, a folded
    rejected(s, "c", {"action": "power", "power": "anchor", "target": "b"}, "bad_target")
    rejected(s, "c", {"action": "power", "power": "anchor", "target": "a"}, "bad_target")
    s2 = state_after(
        [("a", 100), ("b", 100), ("c", 100), ("d", 100)],
        "a",
        [("d", "allin")],
        destellos={"a": 2},
        **NAIKO,
    )
    rejected(s2, "a", {"action": "power", "power": "anchor", "target": "d"}, "bad_target")
    assert balances(s2)["a"] == 3


def test_rules_31_vectors_22_23_anchor_and_seal_once_per_hand() -> None:
    players = [("a", 1000), ("b", 1000), ("c", 1000), ("d", 1000)]
    flop = [
        ("b", "check"),
        ("c", "power", "anchor", "d"),
        ("d", "seal"),
        ("c", "check"),
        ("d", "check"),
        ("a", "check"),
    ]
    s = state_after(
        players,
        "a",
        LIMPS + flop,
        carousel=["peek", "anchor", "seal"],
        destellos={"b": 1, "c": 1},
        **NAIKO,
    )
    assert len(s.board) == 4
    assert balances(s) == {"a": 1, "b": 2, "c": 0, "d": 0}
    s, _ = apply(s, "b", {"action": "power", "power": "anchor", "target": "d"})
    assert s.player_to_act == "b"  # vector 23: d already used his Seal, no window
    assert s.pot_capped[3]
    rejected(s, "d", {"action": "seal"}, "no_anchor_to_answer")
    s, _ = apply(s, "b", {"action": "check"})
    rejected(
        s, "c", {"action": "power", "power": "anchor", "target": "a"}, "power_already_used"
    )  # vector 22: once per hand


def test_rule_5_vector_35_powers_add_nothing_to_hand_value() -> None:
    actions = [("d", "power", "peek"), ("d", "call"), ("a", "call"), ("b", "call"), ("c", "check")]
    actions += [(p, "check") for _ in range(3) for p in ("b", "c", "d", "a")]
    out = run(
        FOUR,
        "a",
        actions,
        hole={"d": ["9c", "9d"], "a": ["Kc", "Qd"]},
        board=["Kh", "Qs", "2c", "5d", "7h"],
        destellos={"d": 2},
        **NAIKO,
    )
    assert out["pots"][0]["winners"] == ["a"]


def test_conformance_naiko_output_keys() -> None:
    out = run(
        FOUR,
        "a",
        [("d", "power", "peek")],
        destellos={"d": 2},
        board=["Kh", "Qs", "2c", "5d", "7h"],
        **NAIKO,
    )
    assert out["destellos"] == {"a": 1, "b": 1, "c": 1, "d": 2}
    assert out["private"] == {"d": {"peeked": "Kh"}}
    d = doc(FOUR, "a", [("d", "power", "peek"), ("d", "power", "peek")], **NAIKO)
    from croupier.poker.tools.conformance import run_scenario

    assert run_scenario(d)["error"]["action_index"] == 1
