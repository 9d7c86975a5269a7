"""The big-blind ante (issue 25; docs/conformance.md, poker: `big_blind_ante`): the big blind
alone posts it, as dead money for the table, after his blind ("big blind first", TDA 2024).

Each hand is also played by PokerKit (`raw_antes={1: x}`, untrimmed antes: its big-blind
ante) and the final stacks compared. PokerKit posts antes before blinds, so a big blind too
short for both is given, as PokerKit's ante, what ours posted after the full blind: the one
known difference, converted rather than copied (`tests.support.poker.pokerkit_stacks`). The
other conversions (odd chips, rule 21's extra check) are scripts/poker_vs_pokerkit.py's.
"""

from __future__ import annotations

import json
import pathlib
import random
from collections.abc import Sequence
from typing import Any

import pytest
from google.protobuf import json_format

from croupier.game import Act, RuleBroken, SeatPlayer, StartHand
from croupier.game.limits import MAX_AMOUNT
from croupier.kit.scenario import MalformedScenario
from croupier.poker.adapters.evaluator import RANKS
from croupier.poker.core import history
from croupier.poker.core.deal import start_hand
from croupier.poker.core.hand import apply
from croupier.poker.core.rules import TableConfig
from croupier.poker.core.state import HandState
from croupier.poker.engine import ENGINE
from croupier.poker.tools.conformance import run_scenario, setup
from croupier.poker.v1 import poker_pb2
from tests.support.paths import DATA
from tests.support.poker import assert_same_as_pokerkit, doc, pokerkit_script
from tests.support.refusals import status_name

SCRIPT = pokerkit_script()


def bba_doc(
    players: Sequence[tuple[str, int]],
    button: str,
    actions: Sequence[Any],
    big_blind_ante: int = 100,
    blinds: tuple[int, int] = (50, 100),
    hole: dict[str, list[str]] | None = None,
    board: Sequence[str] = (),
) -> dict[str, Any]:
    d = doc(players, button, actions, hole=hole, board=board, blinds=blinds)
    d["big_blind_ante"] = big_blind_ante
    return d


def replayed(document: dict[str, Any]) -> dict[str, Any]:
    """`croupier conformance`'s output, checked against PokerKit on the same hand."""
    out = run_scenario(document)
    assert out["error"] is None, out["error"]
    assert_same_as_pokerkit(setup(document), document["actions"])
    return out


CHECK_DOWN = [("d", "check"), ("a", "check")] * 3


# Conformance documents --------------------------------------------------------------------


def test_big_blind_alone_posts_the_ante_as_dead_money() -> None:
    """A full big-blind ante: the big blind's bet stays one big blind (the ante is not part
    of it: the others call 100, not 200); the ante is in the main pot from the start."""
    d = bba_doc(
        [("a", 10_000), ("b", 10_000), ("c", 10_000), ("d", 10_000)],
        "a",
        [("d", "call"), ("a", "fold"), ("b", "fold"), ("c", "check")],
        hole={"c": ["Ks", "Kh"], "d": ["As", "Ah"]},
        board=["2c", "7d", "9h", "Jc", "3s"],
    )
    start = setup(d)
    assert start.stack_list == (10_000, 9_950, 9_800, 10_000)
    assert start.bets[2] == 100 and start.current_bet == 100
    before = run_scenario({**d, "actions": []})
    assert before["legal"]["call"] == 100 and before["legal"]["min_raise_to"] == 200
    assert before["pots"] == [{"amount": 100, "eligible": ["b", "c", "d", "a"], "winners": []}]
    d["actions"] += doc([], "a", [("c", "check"), ("d", "check")] * 3)["actions"]  # checked down
    out = replayed(d)
    # 50 (folded small blind) + 100 + 100 + the dead 100
    assert out["pots"] == [{"amount": 350, "eligible": ["c", "d"], "winners": ["d"]}]
    assert out["returned"] == {}
    assert out["winnings"] == {"d": 350}
    assert out["stacks"] == {"a": 10_000, "b": 9_950, "c": 9_800, "d": 10_250}


def test_big_blind_ante_is_never_returned_as_uncalled() -> None:
    """Everyone folds to the big blind: only the unmatched part of his blind comes back; his
    ante stays in the pot he wins (the hand ends without a showdown)."""
    d = bba_doc(
        [("a", 1_000), ("b", 1_000), ("c", 1_000), ("d", 1_000)],
        "a",
        [("d", "fold"), ("a", "fold"), ("b", "fold")],
    )
    out = replayed(d)
    assert out["returned"] == {"c": 50}
    assert out["pots"] == [{"amount": 200, "eligible": ["c"], "winners": ["c"]}]
    assert out["stacks"] == {"a": 1_000, "b": 950, "c": 1_050, "d": 1_000}


def test_big_blind_short_for_the_ante_posts_the_blind_first() -> None:
    """TDA 2024 "big blind first": a big blind with 150 posts the full blind (100) and 50 of
    the ante, so the others owe a full big blind (not the 50 blind that ante-first posting
    leaves). He is all-in and contests the main pot only: every live player's chips up to
    his blind plus the dead ante; the rest is a side pot without him."""
    d = bba_doc(
        [("a", 5_000), ("b", 5_000), ("c", 150), ("d", 5_000)],
        "a",
        [("d", "raise", 300), ("a", "call"), ("b", "fold"), *CHECK_DOWN],
        hole={"a": ["Qs", "Qh"], "c": ["As", "Ah"], "d": ["Ks", "Kh"]},
        board=["2c", "7d", "9h", "Jc", "3s"],
    )
    start = setup(d)
    assert start.bets[2] == 100 and start.stacks[2] == 0 and start.setup.dead[2] == 50
    assert run_scenario({**d, "actions": []})["legal"]["call"] == 100
    out = replayed(d)
    assert out["pots"] == [
        {"amount": 50 + 3 * 100 + 50, "eligible": ["c", "d", "a"], "winners": ["c"]},
        {"amount": 2 * 200, "eligible": ["d", "a"], "winners": ["d"]},
    ]
    assert out["winnings"] == {"c": 400, "d": 400}
    assert out["stacks"] == {"a": 4_700, "b": 4_950, "c": 400, "d": 5_100}


def test_big_blind_all_in_by_the_blind_alone_posts_no_ante() -> None:
    """A big blind with 80 (less than the blind) posts 80 of the blind and no ante: there is
    no dead money, and his 80 caps the main pot."""
    d = bba_doc(
        [("a", 5_000), ("b", 5_000), ("c", 80), ("d", 5_000)],
        "a",
        [("d", "raise", 300), ("a", "call"), ("b", "fold"), *CHECK_DOWN],
        hole={"a": ["Qs", "Qh"], "c": ["As", "Ah"], "d": ["Ks", "Kh"]},
        board=["2c", "7d", "9h", "Jc", "3s"],
    )
    start = setup(d)
    assert start.bets[2] == 80 and start.setup.dead == ()
    out = replayed(d)
    assert out["pots"] == [
        {"amount": 50 + 3 * 80, "eligible": ["c", "d", "a"], "winners": ["c"]},
        {"amount": 2 * 220, "eligible": ["d", "a"], "winners": ["d"]},
    ]
    assert out["stacks"] == {"a": 4_700, "b": 4_950, "c": 290, "d": 5_140}


def test_rule_9_heads_up_the_non_button_big_blind_posts_the_ante() -> None:
    """Rule 9: heads-up the button posts the small blind; the other player is the big blind
    and posts the ante."""
    d = bba_doc(
        [("a", 2_000), ("b", 2_000)],
        "a",
        [("a", "call"), ("b", "check"), *[("b", "check"), ("a", "check")] * 3],
        hole={"a": ["As", "Ah"], "b": ["Ks", "Kh"]},
        board=["2c", "7d", "9h", "Jc", "3s"],
    )
    start = setup(d)
    assert start.bb_seat == 1 and start.stack_list == (1_950, 1_800)
    out = replayed(d)
    assert out["pots"] == [{"amount": 300, "eligible": ["b", "a"], "winners": ["a"]}]
    assert out["stacks"] == {"a": 2_200, "b": 1_800}


def test_rule_9_heads_up_button_folds_to_the_big_blind_ante() -> None:
    d = bba_doc([("a", 2_000), ("b", 2_000)], "b", [("b", "fold")])
    start = setup(d)
    assert start.bb_seat == 0 and start.setup.dead == (100, 0)
    out = replayed(d)
    assert out["returned"] == {"a": 50}
    assert out["stacks"] == {"a": 2_050, "b": 1_950}


def test_side_pot_the_ante_goes_to_the_main_pot_of_the_short_all_in() -> None:
    """A short all-in player (not the big blind) contests the main pot, dead ante included;
    the big blind and the caller who bet on form a side pot."""
    d = bba_doc(
        [("a", 5_000), ("b", 5_000), ("c", 5_000), ("d", 250), ("e", 5_000)],
        "a",
        [
            ("d", "allin"),
            ("e", "call"),
            ("a", "fold"),
            ("b", "fold"),
            ("c", "call"),
            ("c", "bet", 500),
            ("e", "call"),
            ("c", "check"),
            ("e", "check"),
            ("c", "check"),
            ("e", "check"),
        ],
        hole={"c": ["Qs", "Qh"], "d": ["As", "Ah"], "e": ["Ks", "Kh"]},
        board=["2c", "7d", "9h", "Jc", "3s"],
    )
    out = replayed(d)
    assert out["pots"] == [
        {"amount": 50 + 3 * 250 + 100, "eligible": ["c", "d", "e"], "winners": ["d"]},
        {"amount": 2 * 500, "eligible": ["c", "e"], "winners": ["e"]},
    ]
    assert out["stacks"] == {"a": 5_000, "b": 4_950, "c": 4_150, "d": 900, "e": 5_250}


def test_a_short_small_blind_contests_the_whole_big_blind_ante() -> None:
    """The ante is dead money for the table: a small blind all-in for 30 is eligible for the
    main pot, which holds every player's first 30 and the whole ante (as PokerKit has it)."""
    d = bba_doc(
        [("a", 5_000), ("b", 30), ("c", 5_000), ("d", 5_000)],
        "a",
        [("d", "call"), ("a", "fold"), ("c", "check"), *[("c", "check"), ("d", "check")] * 3],
        hole={"b": ["As", "Ah"], "c": ["Ks", "Kh"], "d": ["Qs", "Qh"]},
        board=["2c", "7d", "9h", "Jc", "3s"],
    )
    out = replayed(d)
    assert out["pots"] == [
        {"amount": 3 * 30 + 100, "eligible": ["b", "c", "d"], "winners": ["b"]},
        {"amount": 2 * 70, "eligible": ["c", "d"], "winners": ["c"]},
    ]
    assert out["stacks"] == {"a": 5_000, "b": 190, "c": 4_940, "d": 4_900}


def test_dead_posts_and_the_big_blind_ante_share_the_main_pot() -> None:
    """OQ 22's dead posts and the big-blind ante are both dead money in the main pot."""
    d = bba_doc(
        [("a", 1_000), ("b", 1_000), ("c", 1_000), ("d", 1_000)],
        "a",
        [("d", "fold"), ("a", "fold"), ("b", "fold")],
    )
    d["posts"] = {"d": {"live": 100, "dead": 50}}
    out = run_scenario(d)
    # c's unmatched blind beyond d's folded live 100 is nil: nothing returned to c
    assert out["returned"] == {}
    assert out["pots"] == [
        {"amount": 50 + 100 + 100 + 100 + 50, "eligible": ["c"], "winners": ["c"]}
    ]
    assert out["stacks"] == {"a": 1_000, "b": 950, "c": 1_200, "d": 850}


def test_ante_and_big_blind_ante_together_are_a_malformed_document() -> None:
    d = bba_doc([("a", 1_000), ("b", 1_000)], "a", [])
    d["ante"] = 10
    with pytest.raises(MalformedScenario, match="ante or a big-blind ante, not both"):
        run_scenario(d)
    for bad in (-1, "100", True, 1.5):
        with pytest.raises(MalformedScenario, match="big_blind_ante"):
            run_scenario({**d, "ante": 0, "big_blind_ante": bad})


def test_a_zero_ante_beside_a_big_blind_ante_is_no_ante() -> None:
    d = bba_doc([("a", 1_000), ("b", 1_000)], "a", [], big_blind_ante=20)
    assert d["ante"] == 0
    assert run_scenario(d)["stacks"] == {"a": 950, "b": 880}


def test_the_hand_history_records_and_replays_the_big_blind_ante() -> None:
    d = bba_doc(
        [("a", 5_000), ("b", 5_000), ("c", 150), ("d", 5_000)],
        "a",
        [("d", "raise", 300), ("a", "call"), ("b", "fold"), *CHECK_DOWN],
    )
    state = setup(d)
    for action in d["actions"]:
        state, _ = apply(state, action["player"], action)
    record = history.record(state)
    assert record["big_blind_ante"] == 100
    assert history.replay(json.loads(json.dumps(record)), RANKS).stack_list == state.stack_list
    assert run_scenario(record)["stacks"] == record["stacks"]  # still a conformance document
    assert "big_blind_ante" not in history.record(setup({**d, "big_blind_ante": 0}))


VECTORS = sorted(
    p
    for p in (DATA / "poker" / "vectors").glob("own-bba-*.json")
    if not p.name.endswith(".expected.json")
)


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_big_blind_ante_vectors_match_pokerkit(path: pathlib.Path) -> None:
    """The big-blind-ante conformance vectors (checked by test_conformance) are PokerKit's
    results too, for the hands played to the end."""
    document = json.loads(path.read_text())
    if run_scenario(document)["status"] == "complete":
        replayed(document)


def test_big_blind_ante_vectors_are_there() -> None:
    assert len(VECTORS) == 6


# Random hands against PokerKit ------------------------------------------------------------


def random_bba_hand(rng: random.Random) -> tuple[HandState, list[dict[str, Any]]]:
    variant = "plo" if rng.random() < 0.2 else "nlhe"
    sb, bb = rng.choice([(1, 2), (5, 10), (25, 50), (50, 100)])
    bba = rng.choice([bb, bb, bb // 2, 2 * bb, 1])
    n = rng.randint(2, 9)
    stacks = [
        rng.randint(1, 3 * bb) if rng.random() < 0.15 else rng.randint(3 * bb, 200 * bb)
        for _ in range(n)
    ]
    button = rng.randrange(n)
    bb_seat = (button + 1) % 2 if n == 2 else (button + 2) % n
    if rng.random() < 0.4:  # the big blind short: for the blind, or for the ante
        stacks[bb_seat] = rng.randint(1, bb + bba + 1)
    # PokerKit asks a big blind short of his blind for the chips posted only (OQ 2)
    config = TableConfig(variant, sb, bb, big_blind_ante=bba, short_big_blind="posted")
    k = config.hole_count
    deck = list(range(52))
    rng.shuffle(deck)
    hole = [deck[i * k : (i + 1) * k] for i in range(n)]
    start = start_hand(
        config,
        [(f"p{i}", s) for i, s in enumerate(stacks)],
        button,
        hole,
        deck[n * k :],
        ranks=RANKS,
    )
    actions = []
    state = start
    while state.result is None:
        action = {"player": state.ids[state.to_act], **SCRIPT.random_action(rng, state)}
        state, _ = apply(state, action["player"], action)
        actions.append(action)
    return start, actions


def test_random_big_blind_ante_hands_match_pokerkit() -> None:
    rng = random.Random(25)
    short = 0
    for _ in range(300):
        start, actions = random_bba_hand(rng)
        bb = start.bb_seat
        if start.initial[bb] < start.config.big_blind + start.config.big_blind_ante:
            short += 1
        # blind first: the blind is whole before any ante is posted
        dead = start.setup.dead[bb] if start.setup.dead else 0
        assert start.contrib[bb] - dead == min(start.config.big_blind, start.initial[bb])
        assert_same_as_pokerkit(start, actions)
    assert short > 60  # the short big blinds were exercised


# The table -------------------------------------------------------------------------------


def test_a_table_with_a_big_blind_ante_posts_it_every_hand() -> None:
    state = ENGINE.open({"variant": "nlhe", "blinds": [50, 100], "big_blind_ante": 100})
    assert state.options.config.big_blind_ante == 100
    for i, player in enumerate(("a", "b", "c")):
        state, _ = ENGINE.apply(state, SeatPlayer(player, i, 5_000))
    big_blinds = []
    for number in range(3):
        state, _ = ENGINE.apply(state, StartHand(bytes([number]) * 32))
        hand = state.hand
        assert hand is not None
        big_blinds.append(hand.ids[hand.bb_seat])
        assert hand.contrib[hand.bb_seat] == 200 and hand.bets[hand.bb_seat] == 100
        assert sum(hand.contrib) == 250  # the small blind, the big blind and his ante
        while actors := [t.player for t in ENGINE.turns(state)]:  # everyone checks or folds
            state, _ = ENGINE.apply(state, Act(actors[0], ENGINE.timeout_action(state, actors[0])))
        assert sum(st for _, _, st in state.seats) == 15_000
    assert sorted(big_blinds) == ["a", "b", "c"]


def test_protobuf_options_carry_the_big_blind_ante() -> None:
    options = poker_pb2.Options(small_blind=50, big_blind=100, big_blind_ante=100)
    raw = json_format.MessageToDict(options, preserving_proto_field_name=True)
    assert ENGINE.open(raw).options.config.big_blind_ante == 100


def test_table_refuses_an_ante_with_a_big_blind_ante_and_out_of_bounds_amounts() -> None:
    with pytest.raises(RuleBroken) as refused:
        ENGINE.open({"blinds": [50, 100], "ante": 10, "big_blind_ante": 100})
    assert status_name(refused.value) == "invalid_argument"
    assert "not both" in refused.value.message
    for bad in (MAX_AMOUNT + 1, -1, "lots", 2.5):
        with pytest.raises(RuleBroken) as refused:
            ENGINE.open({"blinds": [50, 100], "big_blind_ante": bad})
        assert status_name(refused.value) == "invalid_argument"
        assert "options.big_blind_ante" in refused.value.message
