"""Rummy, Rummy 51, Rummy 40 and Rummy 500 rounds replayed from explicit deals
(seed 000 rules 27–32, vectors 1, 5, 6, 8; OQ 10–12)."""

from __future__ import annotations

from typing import Any

import pytest

from croupier.rummy.core import laydown_game, laydown_queries, rummy40, rummy51
from croupier.rummy.core.cards import parse_card, parse_cards
from croupier.rummy.core.errors import RummyError
from croupier.rummy.tools.conformance import run_scenario


def act(player: str, action: str, **fields: Any) -> dict[str, Any]:
    return {"player": player, "action": action, **fields}


def draw(player: str, source: str = "stock", **fields: Any) -> dict[str, Any]:
    return act(player, "draw", **{"from": source}, **fields)


def doc(
    variant: str,
    hands: dict[str, list[str]],
    stock: list[str],
    actions: list[dict[str, Any]],
    upcard: str = "Jh",
    dealer: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    players = list(hands)
    return {
        "game": "rummy",
        "variant": variant,
        "players": players,
        "dealer": dealer or players[-1],
        "hands": hands,
        "upcard": upcard,
        "stock": stock,
        "actions": actions,
        **extra,
    }


KINGS_QUEENS = [["Kh", "Kd", "Ks"], ["Qh", "Qd", "Qs"]]


@pytest.mark.parametrize("variant", ["rummy51", "rummy"])
def test_vector_1_hand_in_one_turn_source_example(variant: str) -> None:
    """Vector 1: out in one turn with nothing laid before (Hand); loser holds 2, 2, 3."""
    hands = {"p1": ["Kh", "Kd", "Ks", "Qh", "Qd", "Qs"], "p2": ["2c", "2d", "3h"]}
    actions = [draw("p1"), act("p1", "out", melds=KINGS_QUEENS, discard="9c")]
    out = run_scenario(
        doc(
            variant,
            hands,
            ["9c", "5d"],
            actions,
            options={"round_fee": 30, "chip_ratio": 3, "chips": {"p1": 1000, "p2": 1000}},
        )
    )
    assert out["error"] is None
    assert (out["status"], out["ending"], out["winner"]) == ("complete", "hand", "p1")
    assert out["deadwood"] == {"p1": 0, "p2": 7}
    assert out["penalty"] == {"p2": 32}
    assert out["chips_paid"] == {"p2": 96}
    assert out["chips_won"] == 156
    assert out["deltas"] == {"p1": 126, "p2": -126}


def test_vector_5_rule_30_going_down_over_several_turns_three_players() -> None:
    """Vector 5: p1 opened earlier, goes out later → losers pay deadwood only (20 and 7)."""
    hands = {
        "p1": ["Kh", "Kd", "Ks", "Qh", "Qd", "Qs", "5c", "6c"],
        "p2": ["Tc", "Td", "8s", "2h"],
        "p3": ["4d", "3d", "Ah"],
    }
    stock = ["9d", "8h", "9s", "7c", "4s"]
    actions = [
        draw("p1"),
        act("p1", "meld", cards=KINGS_QUEENS[0]),
        act("p1", "meld", cards=KINGS_QUEENS[1]),
        act("p1", "discard", card="9d"),
        draw("p2"),
        act("p2", "discard", card="8h"),
        draw("p3"),
        act("p3", "discard", card="9s"),
        draw("p1"),
        act("p1", "out", melds=[["5c", "6c", "7c"]]),
    ]
    out = run_scenario(
        doc(
            "rummy51",
            hands,
            stock,
            actions,
            dealer="p3",
            options={"round_fee": 30, "chip_ratio": 3, "chips": {"p1": 900, "p2": 900, "p3": 900}},
        )
    )
    assert out["error"] is None
    assert (out["ending"], out["winner"]) == ("out", "p1")
    # p2: Tc Td 8s 2h = 30, p3: 4d 3d Ah(11) = 18
    assert out["deadwood"] == {"p1": 0, "p2": 30, "p3": 18}
    assert out["penalty"] == {"p2": 30, "p3": 18}
    assert out["chips_paid"] == {"p2": 90, "p3": 54}
    assert out["chips_won"] == 90 + 90 + 54


def test_rule_29_hand_by_melding_everything_without_a_discard() -> None:
    """OQ 10 reading A: all cards melded in one turn, nothing laid before → Hand (+25)."""
    hands = {"p1": ["Kh", "Kd", "Ks", "Qh", "Qd", "Qs", "5c", "6c"], "p2": ["2c", "2d", "3h", "4h"]}
    one_turn = [draw("p1"), act("p1", "out", melds=[*KINGS_QUEENS, ["5c", "6c", "7c"]])]
    hand = run_scenario(doc("rummy51", hands, ["7c", "8h"], one_turn))
    assert (hand["ending"], hand["penalty"]) == ("hand", {"p2": 11 + 25})


def test_going_down_penalty_has_no_bonus() -> None:
    hands = {"p1": ["Kh", "Kd", "Ks", "Qh", "Qd", "Qs", "5c", "6c"], "p2": ["2c", "2d", "3h", "4h"]}
    stock = ["9d", "8h", "7c", "Tc"]
    actions = [
        draw("p1"),
        act("p1", "meld", cards=KINGS_QUEENS[0]),
        act("p1", "meld", cards=KINGS_QUEENS[1]),
        act("p1", "discard", card="9d"),
        draw("p2"),
        act("p2", "discard", card="8h"),
        draw("p1"),
        act("p1", "out", melds=[["5c", "6c", "7c"]]),
    ]
    out = run_scenario(doc("rummy51", hands, stock, actions))
    assert (out["ending"], out["penalty"]) == ("out", {"p2": 11})


def test_opening_under_51_is_refused_when_the_turn_ends() -> None:
    hands = {"p1": ["9c", "9d", "9s", "Kh", "2d"], "p2": ["2c", "3c", "4h"]}
    actions = [
        draw("p1"),
        act("p1", "meld", cards=["9c", "9d", "9s"]),
        act("p1", "discard", card="2d"),
    ]
    out = run_scenario(doc("rummy51", hands, ["5s", "6s"], actions))
    assert out["error"]["action_index"] == 2
    assert out["error"]["code"] == "opening_below_minimum"
    # with a second meld in the same turn the opening reaches 27 + 24 = 51
    ok = run_scenario(
        doc(
            "rummy51",
            {"p1": ["9c", "9d", "9s", "8h", "8d", "8s", "2d", "Kh"], "p2": ["2c", "3c", "4h"]},
            ["5s", "6s"],
            [
                draw("p1"),
                act("p1", "meld", cards=["9c", "9d", "9s"]),
                act("p1", "meld", cards=["8h", "8d", "8s"]),
                act("p1", "discard", card="2d"),
            ],
        )
    )
    assert ok["error"] is None and ok["status"] == "awaiting_action"


def test_jokers_count_as_the_card_they_stand_for_in_the_opening() -> None:
    hands = {"p1": ["Kh", "X1", "Ks", "Qh", "Qd", "X2", "2d"], "p2": ["2c", "3c", "4h"]}
    actions = [
        draw("p1"),
        act("p1", "meld", melds=[["Kh", {"card": "X1", "as": "Kd"}, "Ks"], ["Qh", "Qd", "X2"]]),
        act("p1", "discard", card="2d"),
    ]
    out = run_scenario(doc("rummy51", hands, ["5s", "6s"], actions))
    assert out["error"] is None
    assert out["melds"][0]["cards"][1] == {"card": "X1", "as": "Kd"}


def test_until_opened_a_taken_discard_must_be_melded_that_turn() -> None:
    hands = {"p1": ["9c", "9d", "Kh", "Kd", "Ks", "Qh", "Qd", "Qs"], "p2": ["2c", "3c", "4h"]}
    refused = run_scenario(
        doc(
            "rummy51",
            hands,
            ["5s"],
            [draw("p1", "discard"), act("p1", "discard", card="9c")],
            upcard="9s",
        )
    )
    assert refused["error"]["code"] == "taken_card_not_melded"
    ok = run_scenario(
        doc(
            "rummy51",
            {**hands, "p1": [*hands["p1"], "2d"]},
            ["5s"],
            [
                draw("p1", "discard"),
                act("p1", "meld", melds=[["9c", "9d", "9s"], *KINGS_QUEENS]),
                act("p1", "discard", card="2d"),
            ],
            upcard="9s",
        )
    )
    assert ok["error"] is None
    assert (ok["ending"], ok["winner"]) == ("hand", "p1")  # opened with it, went out


def test_layoff_needs_an_opening() -> None:
    hands = {"p1": ["Kh", "Kd", "Ks", "Qh", "Qd", "Qs", "2d", "3d"], "p2": ["Kc", "5c", "4h", "7s"]}
    actions = [
        draw("p1"),
        act("p1", "meld", melds=KINGS_QUEENS),
        act("p1", "discard", card="2d"),
        draw("p2"),
        act("p2", "layoff", card="Kc", meld=0),
    ]
    out = run_scenario(doc("rummy51", hands, ["9c", "9d", "9s"], actions))
    assert out["error"] == {
        "action_index": 4,
        "code": "not_opened",
        "message": "lay your opening melds first",
    }


def test_take_joker_back_and_it_must_be_played() -> None:
    hands = {
        "p1": ["5h", "X1", "7h", "Kh", "Kd", "Ks", "Qh", "Qd", "Qs", "2c"],
        "p2": ["Jc", "Jd", "Js", "Tc", "Td", "Ts", "Ac", "Ad", "As", "6h", "4s", "3s"],
    }
    base = [
        draw("p1"),
        act("p1", "meld", melds=[["5h", "X1", "7h"], *KINGS_QUEENS]),
        act("p1", "discard", card="2c"),
        draw("p2"),
        act("p2", "meld", melds=[["Jc", "Jd", "Js"], ["Tc", "Td", "Ts"]]),
        act("p2", "take_joker", card="6h", meld=0),
    ]
    refused = run_scenario(
        doc("rummy51", hands, ["8c", "9c", "9d"], [*base, act("p2", "discard", card="4s")])
    )
    assert refused["error"]["code"] == "joker_not_played"
    played = run_scenario(
        doc(
            "rummy51",
            hands,
            ["8c", "9c", "9d"],
            [
                *base,
                act("p2", "meld", cards=["Ac", "Ad", "As", "X1"]),
                act("p2", "discard", card="4s"),
            ],
        )
    )
    assert played["error"] is None
    assert played["melds"][0]["cards"] == ["5h", "6h", "7h"]


def test_vector_6_rummy40_hand_joker_worth_15() -> None:
    """Vector 6 / rule 28: the loser holds a joker and a king → 15 + 10 + 25 = 50."""
    hands = {"p1": ["Qh", "Kh", "Ah", "Jc", "Jd", "Js"], "p2": ["X1", "Kd"]}
    actions = [
        draw("p1"),
        act("p1", "out", melds=[["Qh", "Kh", "Ah"], ["Jc", "Jd", "Js"]], discard="4c"),
    ]
    out = run_scenario(
        doc(
            "rummy40",
            hands,
            ["4c", "5c"],
            actions,
            options={"round_fee": 10, "chip_ratio": 2, "chips": {"p1": 500, "p2": 500}},
        )
    )
    assert (out["ending"], out["penalty"]) == ("hand", {"p2": 50})
    assert out["chips_paid"] == {"p2": 100} and out["chips_won"] == 120


def test_rummy40_low_ace_counts_1_in_the_opening() -> None:
    hands = {"p1": ["Ah", "2h", "3h", "Kc", "Kd", "Ks", "9c"], "p2": ["X1", "Kh"]}
    actions = [
        draw("p1"),
        act("p1", "meld", melds=[["Ah", "2h", "3h"], ["Kc", "Kd", "Ks"]]),
        act("p1", "discard", card="9c"),
    ]
    out = run_scenario(doc("rummy40", hands, ["4c", "5c"], actions))
    assert out["error"]["code"] == "opening_below_minimum"  # 1 + 2 + 3 + 30 = 36 < 40
    assert "36" in out["error"]["message"]


def test_vector_8_rummy500_scores_melds_for_their_owner() -> None:
    """Vector 8 / rules 31, 32: winner 85; loser melded 40 and holds 22 → 67 × 2 = 134."""
    hands = {
        "p1": ["Kc", "Kd", "Ks", "Qc", "Qd", "Qs", "3s", "4s", "5s", "6s", "7s"],
        "p2": ["Tc", "Td", "Ts", "Th", "9c", "9d", "4h"],
    }
    actions = [
        draw("p2"),
        act("p2", "meld", cards=["Tc", "Td", "Ts", "Th"]),
        act("p2", "discard", card="2c"),
        draw("p1"),
        act(
            "p1",
            "out",
            melds=[["Kc", "Kd", "Ks"], ["Qc", "Qd", "Qs"], ["3s", "4s", "5s", "6s", "7s"]],
            discard="9h",
        ),
    ]
    out = run_scenario(
        doc(
            "rummy500",
            hands,
            ["2c", "9h", "8d"],
            actions,
            dealer="p1",
            options={"round_fee": 20, "chip_ratio": 2, "chips": {"p1": 1000, "p2": 1000}},
        )
    )
    assert out["error"] is None
    assert (out["ending"], out["winner"]) == ("out", "p1")
    assert out["scores"] == {"p1": 85, "p2": 40 - 22}
    assert out["penalty"] == {"p2": 67}
    assert out["chips_paid"] == {"p2": 134} and out["chips_won"] == 174


def test_rummy500_deep_discard_takes_the_cards_above_and_must_be_melded() -> None:
    hands = {"p1": ["5c", "5s", "Kh", "2d"], "p2": ["9c", "8c", "3h", "Qs"]}
    start = [draw("p2"), act("p2", "discard", card="7d")]
    refused = run_scenario(
        doc(
            "rummy500",
            hands,
            ["7d", "Jc", "Jd"],
            [*start, draw("p1", "discard", count=2), act("p1", "discard", card="Kh")],
            upcard="5d",
            dealer="p1",
        )
    )
    assert refused["error"]["code"] == "taken_card_not_melded"
    ok = run_scenario(
        doc(
            "rummy500",
            hands,
            ["7d", "Jc", "Jd"],
            [
                *start,
                draw("p1", "discard", count=2),
                act("p1", "meld", cards=["5c", "5d", "5s"]),
                act("p1", "discard", card="Kh"),
            ],
            upcard="5d",
            dealer="p1",
        )
    )
    assert ok["error"] is None
    assert ok["scores"]["p1"] == 15 - (7 + 2)  # 5-5-5 laid; 7d and 2d in hand


def test_only_rummy500_takes_more_than_the_top_discard() -> None:
    hands = {"p1": ["5c", "5s", "Kh", "2d"], "p2": ["9c", "8c", "3h", "Qs"]}
    out = run_scenario(
        doc(
            "rummy51",
            hands,
            ["7d", "Jc"],
            [draw("p2"), act("p2", "discard", card="7d"), draw("p1", "discard", count=2)],
            upcard="5d",
            dealer="p1",
        )
    )
    assert out["error"]["code"] == "bad_action"


def test_rummy500_round_ends_without_winner_when_the_stock_is_empty() -> None:
    hands = {"p1": ["5c", "5s", "Kh"], "p2": ["9c", "8c", "3h"]}
    out = run_scenario(
        doc(
            "rummy500",
            hands,
            ["7d"],
            [draw("p2"), act("p2", "discard", card="7d"), draw("p1")],
            dealer="p1",
        )
    )
    assert (out["status"], out["ending"], out["winner"]) == ("complete", "draw", None)


def test_rummy51_empty_stock_is_refilled_from_the_discard_pile() -> None:
    hands = {"p1": ["5c", "5s", "Kh"], "p2": ["9c", "8c", "3h"]}
    out = run_scenario(
        doc(
            "rummy51",
            hands,
            ["7d"],
            [draw("p2"), act("p2", "discard", card="9c"), draw("p1")],
            upcard="Jh",
            dealer="p1",
        )
    )
    assert out["error"] is None and out["status"] == "awaiting_action"
    # the pile Jh, 9c turned over: p1 drew Jh, 9c stays as the top discard


@pytest.mark.parametrize(
    ("actions", "code"),
    [
        ([draw("p1"), draw("p1")], "already_drew"),
        ([draw("p1"), act("p1", "discard", card="Ac")], "card_not_held"),
        ([draw("p1"), act("p1", "meld", cards=["Kh", "Kd", "Qh"])], "invalid_meld"),
        ([draw("p1"), act("p1", "meld", cards=["Kh", "Kd", "Kc"])], "meld_not_held"),
        ([act("p1", "discard", card="Kh")], "must_draw_first"),
        ([draw("p2")], "not_your_turn"),
        ([draw("p1"), act("p1", "out", melds=KINGS_QUEENS)], "cannot_go_out"),
    ],
)
def test_refused_actions(actions: list[dict[str, Any]], code: str) -> None:
    hands = {"p1": ["Kh", "Kd", "Ks", "Qh", "Qd", "Qs", "2d"], "p2": ["2c", "3c", "4h"]}
    out = run_scenario(doc("rummy51", hands, ["9c", "9d"], actions))
    assert out["error"]["code"] == code
    assert out["error"]["action_index"] == len(actions) - 1


def test_refused_action_leaves_state_unchanged_and_view_hides_others() -> None:
    state = laydown_game.deal(
        rummy51.RULES,
        ["p1", "p2"],
        "p2",
        {"p1": parse_cards(["Kh", "Kd", "Ks", "2d"]), "p2": parse_cards(["2c", "3c", "4h"])},
        parse_card("Jh"),
        parse_cards(["9c", "9d"]),
    )
    state, _ = laydown_game.apply(state, "p1", {"action": "draw", "from": "stock"})
    state2, _ = laydown_game.apply(state, "p1", {"action": "meld", "cards": ["Kh", "Kd", "Ks"]})
    with pytest.raises(RummyError) as refused:
        laydown_game.apply(state2, "p1", {"action": "discard", "card": "2d"})
    assert refused.value.reason == "opening_below_minimum"
    assert sorted(state2.hands[0]) == sorted(parse_cards(["9c", "2d"]))
    seen = laydown_queries.view(state2, "p2")
    assert sorted(seen["hand"]) == ["2c", "3c", "4h"]
    assert seen["card_counts"] == {"p1": 2, "p2": 3}
    assert "9c" not in repr(seen) and "2d" not in repr(seen)


def test_rule_45_auto_player_discards_the_drawn_card_and_never_melds() -> None:
    state = laydown_game.deal(
        rummy51.RULES,
        ["p1", "p2"],
        "p2",
        {"p1": parse_cards(["Kh", "Kd", "Ks", "2d"]), "p2": parse_cards(["2c", "3c", "4h"])},
        parse_card("Jh"),
        parse_cards(["9c", "9d"]),
    )
    timeout = laydown_queries.timeout_action(state, "p1")
    assert timeout == {"action": "draw", "from": "stock"}
    state, _ = laydown_game.apply(state, "p1", timeout)
    timeout = laydown_queries.timeout_action(state, "p1")
    assert timeout == {"action": "discard", "card": "9c", "auto": True}
    state, _ = laydown_game.apply(state, "p1", timeout)
    assert state.table_melds == () and state.to_act == "p2"


@pytest.mark.parametrize(
    ("variant", "ace", "joker", "rule"),
    [
        ("rummy51", 11, 25, "27"),
        ("rummy", 11, 25, "27"),
        ("rummy40", 11, 15, "28"),
        ("rummy500", 15, 15, "31"),
        ("gin", 1, None, "OQ 14"),
        ("oklahoma_gin", 1, None, "OQ 14"),
    ],
)
def test_rules_27_28_31_oq_14_card_values(
    variant: str, ace: int, joker: int | None, rule: str
) -> None:
    from croupier.rummy.core.variants import VARIANTS

    rules = VARIANTS[variant]
    assert rules.value(parse_card("Ad")) == ace, rule
    assert [rules.value(parse_card(c)) for c in ("2c", "9h", "Ts", "Jd", "Qc", "Kh")] == [
        2,
        9,
        10,
        10,
        10,
        10,
    ]
    if joker is not None:
        assert rules.value(parse_card("X3")) == joker, rule


def test_card_taken_from_the_pile_cannot_go_straight_back() -> None:
    hands = {"p1": ["Kh", "Kd", "Ks", "Qh", "Qd", "Qs", "2d", "3c"], "p2": ["2c", "5c", "4h"]}
    actions = [
        draw("p1"),
        act("p1", "meld", melds=KINGS_QUEENS),
        act("p1", "discard", card="2d"),
        draw("p2"),
        act("p2", "discard", card="5c"),
        draw("p1", "discard"),
        act("p1", "discard", card="5c"),
    ]
    out = run_scenario(doc("rummy51", hands, ["9c", "9d", "9s"], actions))
    assert out["error"]["action_index"] == 6
    assert out["error"]["code"] == "discard_taken_card"


# Rummy 40 (Scala 40): p1 opens with 60 and keeps Kc (fits the kings), X1 (fits any meld)
# and 5d; p2 has not opened and holds Qc, which fits the queens.
SCALA_HANDS = {
    "p1": ["Kh", "Kd", "Ks", "Qh", "Qd", "Qs", "Kc", "X1", "5d"],
    "p2": ["Qc", "2c", "7h", "9s"],
}
SCALA_OPENING = [draw("p1"), act("p1", "meld", melds=KINGS_QUEENS)]


@pytest.mark.parametrize("card", ["Kc", "X1"])
def test_rummy40_a_card_that_could_be_laid_off_may_not_be_discarded(card: str) -> None:
    """Rummy 40 (rummy40.py, after the Scala 40 rule "è vietato scartare carte che leghino
    con combinazioni … sul tavolo"): once a player may lay off, a discard that fits a meld
    on the table is refused (a joker fits any meld); another card may go."""
    refused = run_scenario(
        doc("rummy40", SCALA_HANDS, ["4c", "8d"], [*SCALA_OPENING, act("p1", "discard", card=card)])
    )
    assert refused["error"] == {
        "action_index": 2,
        "code": "discard_could_lay_off",
        "message": f"{card} could be laid off on meld 0: lay it off, or discard another card",
    }
    allowed = run_scenario(
        doc("rummy40", SCALA_HANDS, ["4c", "8d"], [*SCALA_OPENING, act("p1", "discard", card="5d")])
    )
    assert allowed["error"] is None and allowed["to_act"] == "p2"
    # The same discard is legal in Rummy 51 (60 opens there too), which has no such ban.
    other = run_scenario(
        doc("rummy51", SCALA_HANDS, ["4c", "8d"], [*SCALA_OPENING, act("p1", "discard", card=card)])
    )
    assert other["error"] is None and other["to_act"] == "p2"


def test_rummy40_discard_ban_binds_only_a_player_who_may_lay_off_and_not_the_closing_card() -> None:
    """Rummy 40: p2 has not opened (cannot lay off) and may discard Qc, which fits the
    queens; the card that closes the round is free even when it fits a meld; the
    auto-player (seed 000 rule 45) discards the drawn card whatever it fits."""
    unopened = [*SCALA_OPENING, act("p1", "discard", card="5d"), draw("p2")]
    out = run_scenario(
        doc("rummy40", SCALA_HANDS, ["4c", "8d"], [*unopened, act("p2", "discard", card="Qc")])
    )
    assert out["error"] is None and out["to_act"] == "p1"
    closing = {"p1": ["Kh", "Kd", "Ks", "Qh", "Qd", "Qs", "Jc", "Jd", "Js"], "p2": ["2c", "7h"]}
    out = run_scenario(
        doc(
            "rummy40",
            closing,
            ["Kc", "8d"],
            [
                draw("p1"),
                act("p1", "out", melds=[*KINGS_QUEENS, ["Jc", "Jd", "Js"]], discard="Kc"),
            ],
        )
    )
    assert out["error"] is None and (out["ending"], out["winner"]) == ("hand", "p1")
    state = laydown_game.deal(
        rummy40.RULES,
        ["p1", "p2"],
        "p2",
        {p: parse_cards(cards) for p, cards in SCALA_HANDS.items()},
        parse_card("Jh"),
        parse_cards(["Kc", "8d"]),
    )
    state, _ = laydown_game.apply(state, "p1", {"action": "draw", "from": "stock"})
    state, _ = laydown_game.apply(state, "p1", {"action": "meld", "melds": KINGS_QUEENS})
    auto = laydown_queries.timeout_action(state, "p1")
    assert auto == {"action": "discard", "card": "Kc", "auto": True}  # the drawn card
    state, _ = laydown_game.apply(state, "p1", auto)
    assert state.discard_pile[-1] == parse_card("Kc") and state.to_act == "p2"
