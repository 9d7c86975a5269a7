"""Gin Rummy and Oklahoma Gin hands replayed through the engine (seed 000 rules 24–26, 45;
OQ 13, 14, 26), including refused actions."""

from __future__ import annotations

from typing import Any

import pytest

from croupier.rummy.core import gin, knock_game, knock_queries, oklahoma_gin
from croupier.rummy.core.cards import parse_card, parse_cards
from croupier.rummy.core.errors import RummyError
from croupier.rummy.core.knock_game import GinPhase
from croupier.rummy.tools.conformance import run_scenario
from tests.support.refusals import status_name

A_HAND = ["4h", "5h", "6h", "9c", "9d", "9s", "Ac", "2c", "3c", "Kd"]  # deadwood Kd = 10
B_HAND = ["7h", "8c", "8d", "Ks", "Kc", "Jd", "Td", "2d", "3s", "4s"]


def doc(actions: list[dict[str, Any]], **changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "game": "rummy",
        "variant": "gin",
        "players": ["a", "b"],
        "dealer": "b",
        "hands": {"a": A_HAND, "b": B_HAND},
        "upcard": "8s",
        "stock": ["Qs", "5c", "Jh", "Th", "Ah", "2h", "6c", "6d"],
        "actions": actions,
    }
    document.update(changes)
    return document


def act(player: str, action: str, **fields: Any) -> dict[str, Any]:
    return {"player": player, "action": action, **fields}


KNOCK = [
    act("a", "pass"),
    act("b", "draw", **{"from": "discard"}),
    act("b", "discard", card="Kc"),
    act("a", "draw", **{"from": "stock"}),
    act(
        "a",
        "knock",
        discard="Qs",
        melds=[["4h", "5h", "6h"], ["9c", "9d", "9s"], ["Ac", "2c", "3c"]],
    ),
    act("b", "layoff", card="7h", meld=0),
]


def test_rule_25_knock_with_layoff_and_settlement() -> None:
    """Knock 10 vs 39 after laying off 7h → 29 negative points; fee 20, ratio 2 → 58 + 40."""
    out = run_scenario(
        doc(KNOCK, options={"round_fee": 20, "chip_ratio": 2, "chips": {"a": 500, "b": 500}})
    )
    assert out["error"] is None
    assert out["status"] == "complete"
    assert (out["ending"], out["winner"]) == ("knock", "a")
    # b: 8c 8d 8s set; Ks Jd Td 2d 3s 4s = 39 left
    assert out["deadwood"] == {"a": 10, "b": 39}
    assert out["penalty"] == {"b": 29}
    assert out["chips_paid"] == {"b": 58}
    assert out["chips_won"] == 98


def test_layoffs_without_explicit_pass_end_with_the_replay() -> None:
    """The defender's lay-off phase ends with the document (or an explicit pass)."""
    with_pass = run_scenario(doc([*KNOCK, act("b", "pass")]))
    assert with_pass["penalty"] == run_scenario(doc(KNOCK))["penalty"] == {"b": 29}


def test_knock_without_layoff_counts_the_7h() -> None:
    out = run_scenario(doc(KNOCK[:-1]))
    assert out["deadwood"] == {"a": 10, "b": 46}
    assert out["penalty"] == {"b": 36}


def test_rule_24_gin_adds_25_and_allows_no_layoff() -> None:
    hands = {"a": A_HAND, "b": ["7d", *B_HAND[1:]]}
    actions = [
        act("a", "pass"),
        act("b", "pass"),
        act("a", "draw", **{"from": "stock"}),
        act(
            "a",
            "gin",
            discard="Kd",
            melds=[["4h", "5h", "6h", "7h"], ["9c", "9d", "9s"], ["Ac", "2c", "3c"]],
        ),
        act("b", "layoff", card="8c", meld=0),
    ]
    out = run_scenario(doc(actions, hands=hands, stock=["7h", "Qs", "5c", "Jh", "Th"]))
    assert out["error"] == {
        "action_index": 4,
        "code": "layoff_on_gin",
        "message": "no lay-offs on gin",
    }
    assert (out["ending"], out["winner"]) == ("gin", "a")
    assert out["deadwood"] == {"a": 0, "b": 72}
    assert out["penalty"] == {"b": 97}


def test_knock_with_no_deadwood_is_gin() -> None:
    hands = {"a": A_HAND, "b": ["7d", *B_HAND[1:]]}
    actions = [
        act("a", "pass"),
        act("b", "pass"),
        act("a", "draw", **{"from": "stock"}),
        act("a", "knock", discard="Kd"),
    ]
    out = run_scenario(doc(actions, hands=hands, stock=["7h", "Qs", "5c", "Jh", "Th"]))
    assert out["ending"] == "gin" and out["penalty"] == {"b": 97}


@pytest.mark.parametrize(("last", "deadwood", "penalty"), [("8h", 8, 12), ("Tc", 10, 10)])
def test_rule_26_undercut_and_tie(last: str, deadwood: int, penalty: int) -> None:
    """Defender's deadwood ≤ knocker's: undercut; knocker pays difference + 10 (OQ 13)."""
    b_hand = ["7c", "7d", "7s", "2d", "3d", "4d", "Js", "Qs", "Ks", last]
    actions = [
        act("a", "pass"),
        act("b", "pass"),
        act("a", "draw", **{"from": "stock"}),
        act("a", "knock", discard="Th"),
    ]
    out = run_scenario(
        doc(actions, hands={"a": A_HAND, "b": b_hand}, upcard="5s", stock=["Th", "5c", "Jh", "6c"])
    )
    assert (out["ending"], out["winner"]) == ("undercut", "b")
    assert out["deadwood"] == {"a": 10, "b": deadwood}
    assert out["penalty"] == {"a": penalty}


def test_two_layoffs_extend_the_same_run() -> None:
    b_hand = ["7h", "8h", "Kc", "Ks", "Jd", "Td", "2d", "3s", "4s", "8d"]
    actions = [
        *KNOCK[:2],
        act("b", "discard", card="Kc"),
        *KNOCK[3:5],
        act("b", "layoff", card="7h", meld=0),
        act("b", "layoff", card="8h", meld=0),
    ]
    out = run_scenario(doc(actions, hands={"a": A_HAND, "b": b_hand}))
    assert out["error"] is None
    # b keeps Ks Jd Td 2d 3s 4s 8d 8s = 10+10+10+2+3+4+8+8
    assert out["deadwood"]["b"] == 55


def test_stock_down_to_two_cards_ends_without_a_winner() -> None:
    actions = [
        act("a", "pass"),
        act("b", "pass"),
        act("a", "draw", **{"from": "stock"}),
        act("a", "discard", card="Qs"),
    ]
    out = run_scenario(
        doc(
            actions,
            stock=["Qs", "5c", "Jh"],
            options={"round_fee": 20, "chip_ratio": 2, "chips": {"a": 100, "b": 100}},
        )
    )
    assert out["status"] == "complete"
    assert (out["ending"], out["winner"], out["penalty"]) == ("draw", None, {})
    assert out["chips_paid"] == {} and out["deltas"] == {"a": 0, "b": 0}


def test_oq_14_oklahoma_upcard_sets_knock_limit() -> None:
    """Oklahoma Gin: up-card 3 → knock limit 3; knocking with 10 is refused."""
    actions = [
        act("a", "pass"),
        act("b", "pass"),
        act("a", "draw", **{"from": "stock"}),
        act("a", "knock", discard="Qs"),
    ]
    out = run_scenario(doc(actions, variant="oklahoma_gin", upcard="3d"))
    assert out["error"]["code"] == "knock_over_limit"
    assert out["error"]["action_index"] == 3
    gin_out = run_scenario(doc(actions, upcard="3d"))
    assert gin_out["ending"] == "knock"


def test_oq_14_oklahoma_ace_upcard_means_gin_only() -> None:
    state = knock_game.deal(
        oklahoma_gin.RULES,
        ["a", "b"],
        "b",
        {"a": parse_cards(A_HAND), "b": parse_cards(B_HAND)},
        parse_card("Ah"),
        parse_cards(["Qs", "2s"]),
    )
    assert state.knock_limit == 0
    face = knock_game.deal(
        oklahoma_gin.RULES,
        ["a", "b"],
        "b",
        {"a": parse_cards(A_HAND), "b": parse_cards(B_HAND)},
        parse_card("Qh"),
        parse_cards(["Qs", "2s"]),
    )
    assert face.knock_limit == 10


@pytest.mark.parametrize(
    ("actions", "index", "code"),
    [
        (
            [
                act("a", "pass"),
                act("b", "pass"),
                act("a", "draw", **{"from": "stock"}),
                act("a", "draw", **{"from": "stock"}),
            ],
            3,
            "already_drew",
        ),
        (
            [
                act("a", "pass"),
                act("b", "pass"),
                act("a", "draw", **{"from": "stock"}),
                act("a", "discard", card="7h"),
            ],
            3,
            "card_not_held",
        ),
        (
            [
                act("a", "pass"),
                act("b", "pass"),
                act("a", "draw", **{"from": "stock"}),
                act("a", "knock", discard="Qs", melds=[["4h", "5h", "9c"]]),
            ],
            3,
            "invalid_meld",
        ),
        (
            [
                act("a", "pass"),
                act("b", "pass"),
                act("a", "draw", **{"from": "stock"}),
                act("a", "knock", discard="Qs", melds=[["4h", "5h", "6h"], ["9c", "9d", "9s"]]),
            ],
            3,
            "knock_over_limit",
        ),
        (
            [
                act("a", "pass"),
                act("b", "pass"),
                act("a", "draw", **{"from": "stock"}),
                act("a", "gin", discard="Qs"),
            ],
            3,
            "not_gin",
        ),
        ([act("b", "pass")], 0, "not_your_turn"),
        ([act("a", "draw", **{"from": "stock"})], 0, "wrong_phase"),
        (
            [act("a", "pass"), act("b", "pass"), act("a", "draw", **{"from": "discard"})],
            2,
            "wrong_phase",
        ),
        (
            [act("a", "draw", **{"from": "discard"}), act("a", "discard", card="8s")],
            1,
            "discard_taken_card",
        ),
        ([act("a", "discard", card="Kd")], 0, "must_draw_first"),
        ([act("a", "pass"), act("b", "layoff", card="7h", meld=0)], 1, "wrong_phase"),
        ([act("a", "shuffle")], 0, "unknown_action"),
    ],
)
def test_refused_actions_report_code_and_stop(
    actions: list[dict[str, Any]], index: int, code: str
) -> None:
    out = run_scenario(doc(actions))
    assert out["error"]["action_index"] == index
    assert out["error"]["code"] == code
    assert out["error"]["message"]
    assert out["status"] == "awaiting_action"


def test_refused_action_leaves_state_unchanged() -> None:
    state = knock_game.deal(
        gin.RULES,
        ["a", "b"],
        "b",
        {"a": parse_cards(A_HAND), "b": parse_cards(B_HAND)},
        parse_card("8s"),
        parse_cards(["Qs", "5c", "Jh", "Th"]),
    )
    state, _ = knock_game.apply(state, "a", {"action": "pass"})
    state, _ = knock_game.apply(state, "b", {"action": "pass"})
    state, _ = knock_game.apply(state, "a", {"action": "draw", "from": "stock"})
    before = state
    with pytest.raises(RummyError) as refused:
        knock_game.apply(
            state, "a", {"action": "knock", "discard": "Kd", "melds": [["4h", "5h", "6h"]]}
        )
    assert refused.value.reason == "knock_over_limit"
    assert status_name(refused.value) == "failed_precondition"
    assert state == before and state.phase is GinPhase.DISCARD


def test_error_messages_never_name_the_opponents_cards() -> None:
    out = run_scenario(
        doc(
            [
                act("a", "pass"),
                act("b", "pass"),
                act("a", "draw", **{"from": "stock"}),
                act("a", "discard", card="7h"),
            ]
        )
    )
    assert "7h" in out["error"]["message"]  # the card the player named
    for card in B_HAND:
        if card != "7h":
            assert card not in out["error"]["message"]


def test_view_shows_own_hand_counts_and_piles_only() -> None:
    state = knock_game.deal(
        gin.RULES,
        ["a", "b"],
        "b",
        {"a": parse_cards(A_HAND), "b": parse_cards(B_HAND)},
        parse_card("8s"),
        parse_cards(["Qs", "5c", "Jh", "Th"]),
    )
    seen = knock_queries.view(state, "a")
    assert sorted(seen["hand"]) == sorted(A_HAND)
    assert seen["card_counts"] == {"a": 10, "b": 10}
    assert seen["discard_pile"] == ["8s"]
    text = repr(seen)
    for card in [*B_HAND, "Qs", "5c", "Jh", "Th"]:
        assert f"'{card}'" not in text


def test_rule_45_oq_26_timeout_actions() -> None:
    """Auto-player: draw from the stock and discard that card; never melds or knocks."""
    state = knock_game.deal(
        gin.RULES,
        ["a", "b"],
        "b",
        {"a": parse_cards(A_HAND), "b": parse_cards(B_HAND)},
        parse_card("8s"),
        parse_cards(["Qs", "5c", "Jh", "Th"]),
    )
    assert knock_queries.timeout_action(state, "a") == {"action": "pass"}
    state, _ = knock_game.apply(state, "a", {"action": "pass"})
    state, _ = knock_game.apply(state, "b", {"action": "pass"})
    assert knock_queries.timeout_action(state, "a") == {"action": "draw", "from": "stock"}
    state, _ = knock_game.apply(state, "a", knock_queries.timeout_action(state, "a"))
    # a could knock now (deadwood 10), but the auto-player discards the drawn card
    assert knock_queries.timeout_action(state, "a") == {
        "action": "discard",
        "card": "Qs",
        "auto": True,
    }
    state, _ = knock_game.apply(state, "a", knock_queries.timeout_action(state, "a"))
    # b takes the discard manually, then times out: OQ 26, the card drawn this turn goes
    # back (the auto-player may, a player may not)
    state, _ = knock_game.apply(state, "b", {"action": "draw", "from": "discard"})
    timeout = knock_queries.timeout_action(state, "b")
    assert timeout == {"action": "discard", "card": "Qs", "auto": True}
    with pytest.raises(RummyError):
        knock_game.apply(state, "b", {"action": "discard", "card": "Qs"})
    knock_game.apply(state, "b", timeout)


def test_events_never_reveal_a_stock_card() -> None:
    state = knock_game.deal(
        gin.RULES,
        ["a", "b"],
        "b",
        {"a": parse_cards(A_HAND), "b": parse_cards(B_HAND)},
        parse_card("8s"),
        parse_cards(["Qs", "5c", "Jh", "Th"]),
    )
    state, _ = knock_game.apply(state, "a", {"action": "pass"})
    state, _ = knock_game.apply(state, "b", {"action": "pass"})
    _, events = knock_game.apply(state, "a", {"action": "draw", "from": "stock"})
    assert "Qs" not in repr(events)


def test_gin_with_all_eleven_cards_melded_and_no_discard_scores_as_gin() -> None:
    """Big gin (pagat): accepted and scored as gin; seed 000 has no extra bonus for it."""
    a_hand = ["4h", "5h", "6h", "9c", "9d", "9s", "Ac", "2c", "3c", "8h"]
    hands = {"a": a_hand, "b": ["7d", *B_HAND[1:]]}
    melds = [["4h", "5h", "6h", "7h", "8h"], ["9c", "9d", "9s"], ["Ac", "2c", "3c"]]
    actions = [
        act("a", "pass"),
        act("b", "pass"),
        act("a", "draw", **{"from": "stock"}),
        act("a", "gin", melds=melds),
    ]
    out = run_scenario(doc(actions, hands=hands, stock=["7h", "Qs", "5c", "Jh", "Th"]))
    assert out["error"] is None, out["error"]
    assert (out["ending"], out["winner"]) == ("gin", "a")
    assert out["penalty"] == {"b": 72 + 25}


def test_knock_needs_a_discard() -> None:
    actions = [
        act("a", "pass"),
        act("b", "pass"),
        act("a", "draw", **{"from": "stock"}),
        act("a", "knock"),
    ]
    out = run_scenario(doc(actions))
    assert out["error"]["code"] == "bad_action"
