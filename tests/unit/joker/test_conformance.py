"""`croupier conformance` for Joker: the public examples (tests/data/conformance/public/joker),
whole hands from explicit deals, reported illegal actions and malformed documents."""

from __future__ import annotations

import copy
import json
import pathlib
from typing import Any

import pytest

from croupier.joker.tools.conformance import run_scenario
from croupier.kit.scenario import MalformedScenario
from tests.support import paths

VECTORS = paths.PUBLIC / "joker"
EXAMPLES = sorted(p for p in VECTORS.glob("*.json") if not p.name.endswith(".expected.json"))
# An empty list would parametrise nothing and pass: the 10 public examples at least.
assert len(EXAMPLES) >= 10, f"joker vectors missing from {VECTORS}"


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_public_examples(path: pathlib.Path) -> None:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    out = run_scenario(json.loads(path.read_text()))
    for key, value in expected.items():
        assert out[key] == value, key
        assert json.dumps(out[key]) == json.dumps(value)  # integers stay integers


HAND: dict[str, Any] = {
    "game": "joker",
    "kind": "hand",
    "players": ["giorgi", "nika", "ana", "levan"],
    "dealer": "levan",
    "cards_per_hand": 3,
    "hands": {
        "giorgi": ["Ah", "7c", "X1"],
        "nika": ["9h", "Kd", "8s"],
        "ana": ["Th", "6d", "As"],
        "levan": ["Jc", "Qc", "X2"],
    },
    "trump_card": "Qd",
    "options": {"khishti": -200},
    "actions": [
        {"player": "giorgi", "action": "bid", "tricks": 1},
        {"player": "nika", "action": "bid", "tricks": 0},
        {"player": "ana", "action": "bid", "tricks": 1},
        {"player": "levan", "action": "bid", "tricks": 0},
        {"player": "giorgi", "action": "play", "card": "X1", "joker": "high", "suit": "h"},
        {"player": "nika", "action": "play", "card": "9h"},
        {"player": "ana", "action": "play", "card": "Th"},
        {"player": "levan", "action": "play", "card": "Jc"},
        {"player": "giorgi", "action": "play", "card": "7c"},
        {"player": "nika", "action": "play", "card": "Kd"},
        {"player": "ana", "action": "play", "card": "6d"},
        {"player": "levan", "action": "play", "card": "Qc"},
        {"player": "nika", "action": "play", "card": "8s"},
        {"player": "ana", "action": "play", "card": "As"},
        {"player": "levan", "action": "play", "card": "X2", "joker": "under"},
        {"player": "giorgi", "action": "play", "card": "Ah"},
    ],
}


def test_whole_hand_scores_bg9() -> None:
    out = run_scenario(copy.deepcopy(HAND))
    assert out["status"] == "complete" and out["error"] is None
    assert out["trump"] == "d"
    assert out["bids"] == {"giorgi": 1, "nika": 0, "ana": 1, "levan": 0}
    assert out["tricks"] == {"giorgi": 1, "nika": 1, "ana": 1, "levan": 0}
    assert out["hand_scores"] == {"giorgi": 100, "nika": 10, "ana": 100, "levan": 50}
    assert out["trick_winners"] == ["giorgi", "nika", "ana"]
    assert out["to_act"] is None


def test_awaiting_action_reports_to_act_and_legal() -> None:
    doc = copy.deepcopy(HAND)
    doc["actions"] = doc["actions"][:5]
    out = run_scenario(doc)
    assert out["status"] == "awaiting_action" and out["to_act"] == "nika"
    assert out["legal"] == {"actions": ["play"], "cards": ["9h"]}  # highest heart
    assert out["hand_scores"] == {}


@pytest.mark.parametrize(
    ("index", "action", "code"),
    [
        (0, {"player": "nika", "action": "bid", "tricks": 0}, "not_your_turn"),
        (3, {"player": "levan", "action": "bid", "tricks": 1}, "dealer_bid_forbidden"),
        (4, {"player": "giorgi", "action": "play", "card": "Kh"}, "card_not_held"),
        (4, {"player": "giorgi", "action": "play", "card": "X1"}, "invalid_joker_use"),
        (
            4,
            {"player": "giorgi", "action": "play", "card": "X1", "joker": "high", "suit": "z"},
            "invalid_joker_use",
        ),
        (8, {"player": "giorgi", "action": "play", "card": "X1", "joker": "high"}, "card_not_held"),
        (9, {"player": "nika", "action": "play", "card": "8s"}, "must_play_trump"),
    ],
)
def test_illegal_action_is_reported_with_state_before_it(
    index: int, action: dict[str, Any], code: str
) -> None:
    doc = copy.deepcopy(HAND)
    doc["actions"][index] = action
    out = run_scenario(doc)
    assert out["error"]["action_index"] == index
    assert out["error"]["code"] == code and out["error"]["message"]
    assert out["status"] == "awaiting_action"
    before = copy.deepcopy(HAND)
    before["actions"] = before["actions"][:index]
    expected = run_scenario(before)
    assert {k: v for k, v in out.items() if k != "error"} == {
        k: v for k, v in expected.items() if k != "error"
    }


def test_nine_card_hand_trump_declared_first() -> None:
    deck = [
        "Ah",
        "Kh",
        "Qh",
        "Jh",
        "Th",
        "9h",
        "8h",
        "7h",
        "6h",
        "Ad",
        "Kd",
        "Qd",
        "Jd",
        "Td",
        "9d",
        "8d",
        "7d",
        "6d",
        "Ac",
        "Kc",
        "Qc",
        "Jc",
        "Tc",
        "9c",
        "8c",
        "7c",
        "X1",
        "As",
        "Ks",
        "Qs",
        "Js",
        "Ts",
        "9s",
        "8s",
        "7s",
        "X2",
    ]
    doc = {
        "game": "joker",
        "kind": "hand",
        "players": ["a", "b", "c", "d"],
        "dealer": "d",
        "cards_per_hand": 9,
        "hands": {p: deck[i * 9 : (i + 1) * 9] for i, p in enumerate("abcd")},
        "actions": [{"player": "a", "action": "trump", "suit": "none"}],
    }
    out = run_scenario(doc)
    assert out["trump"] == "none" and out["to_act"] == "a"
    assert out["legal"]["tricks"] == list(range(10))
    doc["actions"] = []
    assert run_scenario(doc)["trump"] is None
    assert run_scenario(doc)["bids"] == {}
    assert run_scenario(doc)["legal"]["actions"] == ["trump"]
    doc["actions"] = [{"player": "a", "action": "bid", "tricks": 1}]
    assert run_scenario(doc)["error"]["code"] == "wrong_phase"


def test_turned_joker_means_no_trump() -> None:
    doc = copy.deepcopy(HAND)
    doc["hands"]["levan"] = ["Jc", "Qc", "Qd"]
    doc["trump_card"] = "X2"
    doc["actions"] = []
    assert run_scenario(doc)["trump"] == "none"


@pytest.mark.parametrize(
    "change",
    [
        {"trump_card": "6s"},
        {"trump_card": None},
        {"dealer": "zaza"},
        {"players": ["giorgi", "nika", "ana"]},
        {"cards_per_hand": 4},
        {"trump_card": "Ah"},
        {"kind": "tournament"},
        {"options": {"premia": "yes"}},
    ],
)
def test_malformed_documents(change: dict[str, Any]) -> None:
    doc = copy.deepcopy(HAND)
    doc.update(change)
    with pytest.raises(MalformedScenario):
        run_scenario(doc)


def test_score_pulka_khishti_split_option() -> None:
    doc = {
        "game": "joker",
        "kind": "score_pulka",
        "options": {"khishti": {"short_hands": -200, "nine_card_hands": -500}},
        "hands": [{"a": {"bid": 1, "took": 0}, "b": {"bid": 0, "took": 1}}] * 2,
        "cards_per_hand": [8, 9],
    }
    out = run_scenario(doc)
    assert out["hand_scores"]["a"] == [-200, -500]


def test_score_pulka_malformed() -> None:
    with pytest.raises(MalformedScenario):
        run_scenario({"game": "joker", "kind": "score_pulka", "hands": [], "cards_per_hand": []})
    with pytest.raises(MalformedScenario):
        run_scenario(
            {
                "game": "joker",
                "kind": "score_pulka",
                "hands": [{"a": {"bid": 10, "took": 0}}],
                "cards_per_hand": [9],
            }
        )


def test_options_in_table_api_form() -> None:
    from croupier.joker.core.options import Khishti, TookAll
    from croupier.joker.core.table_options import parse_options

    options = parse_options(
        {"khishti": -200, "khishti_nine_card_hands": "-500", "took_all": "TOOK_ALL_AS_BID"}
    )
    assert options.khishti == Khishti.split(-200, -500)
    assert options.took_all is TookAll.AS_BID
    assert parse_options({"khishti_nine_card_hands": 0}).khishti == Khishti()
