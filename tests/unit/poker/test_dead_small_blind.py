"""A dead small blind (issue 25): the tournament director's dead button rule (TDA) leaves a
hand without a small blind when the last big blind busted: nobody holds that seat. The hand
has its button, no small blind, and the big blind left of the button
(`start_hand(dead_small_blind=True)`, the conformance key and table option
`dead_small_blind`). Rules 7, 11 and 24 read as written: preflop from the first player left
of the big blind round to the button, then the big blind's option; after the flop from the
first player left of the button, the big blind; odd chips from the button's left.

Hands played to the end are also played by PokerKit, where our big blind is its player 0
posting the only blind (`tests.support.poker.pokerkit_stacks`)."""

from __future__ import annotations

import hashlib
import json
import pathlib
import random
from collections.abc import Sequence
from typing import Any

import pytest

from croupier.game import Act, Malformed, SeatPlayer, StartHand
from croupier.kit.scenario import MalformedScenario
from croupier.poker.adapters.evaluator import RANKS
from croupier.poker.core import history
from croupier.poker.core.deal import start_hand
from croupier.poker.core.hand import apply, legal_actions
from croupier.poker.core.rules import TableConfig
from croupier.poker.core.state import PREFLOP, HandState
from croupier.poker.engine import ENGINE
from croupier.poker.tools.conformance import run_scenario, setup
from tests.support.paths import DATA
from tests.support.poker import assert_same_as_pokerkit, doc, pokerkit_script, state_after
from tests.support.refusals import status_name

SCRIPT = pokerkit_script()
FOUR = [("btn", 1_000), ("bb", 1_000), ("c", 1_000), ("d", 1_000)]
THREE = FOUR[:3]
ROYAL = ["As", "Ks", "Qs", "Js", "Ts"]  # the board plays for everyone: split pots


def dead(players: list[tuple[str, int]], actions: Sequence[Any] = (), **kw: Any) -> HandState:
    """The hand (after `actions`) with blinds 5/10, the small blind dead."""
    return state_after(players, "btn", actions, blinds=(5, 10), dead_small_blind=True, **kw)


def street_order(state: HandState) -> tuple[list[str], HandState]:
    """Who acts, in turn, while everyone checks (or calls) the current street through."""
    street = state.street
    order = []
    while state.street == street and state.player_to_act is not None:
        player = state.player_to_act
        order.append(player)
        kind = "check" if "check" in legal_actions(state, player)["actions"] else "call"
        state, _ = apply(state, player, {"action": kind})
    return order, state


def test_rule_6_with_a_dead_small_blind_only_the_big_blind_left_of_the_button_posts() -> None:
    s = dead(FOUR)
    assert (s.sb_seat, s.bb_seat, s.dead_small_blind) == (-1, 1, True)
    assert s.bets == [0, 10, 0, 0] and s.pot_total == 10
    assert s.current_bet == 10


def test_rule_7_dead_small_blind_preflop_runs_from_left_of_the_big_blind_to_the_button() -> None:
    order, s = street_order(dead(FOUR))
    assert order == ["c", "d", "btn", "bb"]
    assert s.street == PREFLOP + 1


def test_rule_11_dead_small_blind_the_big_blind_keeps_his_option() -> None:
    s = dead(FOUR, [("c", "call"), ("d", "call"), ("btn", "call")])
    assert s.player_to_act == "bb"
    legal = legal_actions(s, "bb")
    assert legal["actions"] == ["fold", "check", "raise", "allin"]
    assert legal["min_raise_to"] == 20


def test_rule_7_dead_small_blind_after_the_flop_the_big_blind_acts_first() -> None:
    _, s = street_order(dead(FOUR))
    for _ in range(3):  # flop, turn and river
        order, s = street_order(s)
        assert order == ["bb", "c", "d", "btn"]
    assert s.result is not None


def test_rule_7_dead_small_blind_three_players() -> None:
    order, s = street_order(dead(THREE))
    assert order == ["c", "btn", "bb"]
    order, s = street_order(s)
    assert order == ["bb", "c", "btn"]


def test_dead_small_blind_pot_holds_the_big_blind_and_the_calls() -> None:
    out = run_scenario(
        doc(FOUR, "btn", [("c", "call"), ("d", "call"), ("btn", "call"), ("bb", "check")],
            blinds=(5, 10), dead_small_blind=True)
    )  # fmt: skip
    assert out["status"] == "awaiting_action" and out["to_act"] == "bb"
    # no small blind: 4 x 10, every player eligible clockwise from the button's left
    assert out["pots"] == [{"amount": 40, "eligible": ["bb", "c", "d", "btn"], "winners": []}]


def test_rule_20_dead_small_blind_folded_round_to_the_big_blind_costs_nobody_anything() -> None:
    d = doc(FOUR, "btn", [("c", "fold"), ("d", "fold"), ("btn", "fold")], dead_small_blind=True)
    out = run_scenario(d)
    assert out["returned"] == {"bb": 2}  # his blind, uncalled
    assert out["stacks"] == dict(FOUR)
    assert_same_as_pokerkit(setup(d), d["actions"])


def test_rule_24_dead_small_blind_odd_chip_goes_first_left_of_the_button_the_big_blind() -> None:
    """Pot 7 (antes 3, the big blind and c's call) split by the board between the big blind
    and c: the odd chip to the first winner left of the button, the big blind."""
    actions = [
        ("c", "call"),
        ("btn", "fold"),
        ("bb", "check"),
        *[("bb", "check"), ("c", "check")] * 3,
    ]
    d = doc(THREE, "btn", actions, board=ROYAL, ante=1, dead_small_blind=True)  # fmt: skip
    out = run_scenario(d)
    assert out["pots"] == [{"amount": 7, "eligible": ["bb", "c"], "winners": ["bb", "c"]}]
    assert out["winnings"] == {"bb": 4, "c": 3}


def test_rule_9_heads_up_no_small_blind_can_be_dead() -> None:
    with pytest.raises(ValueError, match="heads-up"):
        start_hand(
            TableConfig(),
            [("a", 100), ("b", 100)],
            0,
            [[0, 1], [2, 3]],
            list(range(4, 52)),
            ranks=RANKS,
            dead_small_blind=True,
        )
    with pytest.raises(MalformedScenario, match="heads-up"):
        run_scenario(doc([("a", 100), ("b", 100)], "a", dead_small_blind=True))


def test_a_dead_small_blind_that_is_not_true_or_false_is_a_malformed_document() -> None:
    for bad in ("yes", 1, None):
        with pytest.raises(MalformedScenario, match="dead_small_blind"):
            run_scenario({**doc(FOUR, "btn"), "dead_small_blind": bad})


def test_the_hand_history_records_and_replays_the_dead_small_blind() -> None:
    s = dead(FOUR, [("c", "raise", 30), ("d", "fold"), ("btn", "call"), ("bb", "fold")])
    while s.result is None:
        player = s.player_to_act
        assert player is not None
        s, _ = apply(s, player, {"action": "check"})
    record = history.record(s)
    assert record["dead_small_blind"] is True
    replayed = history.replay(json.loads(json.dumps(record)), RANKS)
    assert replayed.dead_small_blind and replayed.stack_list == s.stack_list
    assert run_scenario(record)["stacks"] == record["stacks"]  # still a conformance document
    assert "dead_small_blind" not in history.record(state_after(FOUR, "btn"))


VECTORS = sorted(
    p
    for p in (DATA / "poker" / "vectors").glob("own-dsb-*.json")
    if not p.name.endswith(".expected.json")
)


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_dead_small_blind_vectors_match_pokerkit(path: pathlib.Path) -> None:
    """The dead-small-blind conformance vectors (checked by test_conformance) are PokerKit's
    results too, for the hands played to the end."""
    document = json.loads(path.read_text())
    assert document["dead_small_blind"] is True
    if run_scenario(document)["status"] == "complete":
        assert_same_as_pokerkit(setup(document), document["actions"])


def test_dead_small_blind_vectors_are_there() -> None:
    assert len(VECTORS) == 2


def random_dead_small_blind_hand(rng: random.Random) -> tuple[HandState, list[dict[str, Any]]]:
    variant = "plo" if rng.random() < 0.2 else "nlhe"
    sb, bb = rng.choice([(1, 2), (5, 10), (50, 100)])
    ante = rng.choice([0, 0, bb])
    n = rng.randint(3, 9)
    stacks = [
        rng.randint(1, 3 * bb) if rng.random() < 0.15 else rng.randint(3 * bb, 200 * bb)
        for _ in range(n)
    ]
    config = TableConfig(variant, sb, bb, big_blind_ante=ante, short_big_blind="posted")
    k = config.hole_count
    deck = list(range(52))
    rng.shuffle(deck)
    start = start_hand(
        config,
        [(f"p{i}", s) for i, s in enumerate(stacks)],
        rng.randrange(n),
        [deck[i * k : (i + 1) * k] for i in range(n)],
        deck[n * k :],
        ranks=RANKS,
        dead_small_blind=True,
    )
    actions = []
    state = start
    while state.result is None:
        action = {"player": state.ids[state.to_act], **SCRIPT.random_action(rng, state)}
        state, _ = apply(state, action["player"], action)
        actions.append(action)
    return start, actions


def test_random_dead_small_blind_hands_match_pokerkit() -> None:
    """Big-blind antes and short big blinds too (PokerKit's rule for a short big blind,
    OQ 2 "posted"); the actor checked at every step (`pokerkit_stacks`)."""
    rng = random.Random(2025)
    for _ in range(100):
        start, actions = random_dead_small_blind_hand(rng)
        assert sum(start.bets) == min(start.config.big_blind, start.initial[start.bb_seat])
        assert_same_as_pokerkit(start, actions)


# A tournament hand's table -------------------------------------------------------------------


def test_a_hand_table_with_a_dead_small_blind_gives_seat_0_the_button_seat_1_the_big_blind() -> (
    None
):
    state = ENGINE.open(
        {"blinds": [10, 20], "seats": 4, "hand_players": 4, "dead_small_blind": True}
    )
    for number, player in enumerate(("a", "b", "c", "d")):
        state, _ = ENGINE.apply(state, SeatPlayer(player, number, 1_000))
    state, events = ENGINE.apply(state, StartHand(hashlib.sha256(b"dead").digest()))
    hand = state.hand
    assert hand is not None
    assert (hand.ids[hand.button], hand.dead_small_blind, hand.ids[hand.bb_seat]) == (
        "a",
        True,
        "b",
    )
    (started,) = (e for e in events if e.type == "hand_started")
    assert (started.data["button"], started.data["small_blind"]) == ("a", None)
    assert started.data["big_blind"] == "b"
    assert [t.player for t in ENGINE.turns(state)] == ["c"]
    while turns := ENGINE.turns(state):
        player = turns[0].player
        state, _ = ENGINE.apply(state, Act(player, ENGINE.timeout_action(state, player)))
    result = ENGINE.result(state)
    assert result is not None
    assert result.details["stacks"] == {"a": 1_000, "b": 1_000, "c": 1_000, "d": 1_000}


def test_rule_9_a_hand_table_left_with_two_players_deals_them_heads_up() -> None:
    """One of three sat out before the deal: heads-up the button posts the small blind,
    the option notwithstanding (no hand without a small blind between two)."""
    state = ENGINE.open(
        {"blinds": [10, 20], "seats": 3, "hand_players": 3, "dead_small_blind": True}
    )
    for number, player in enumerate(("a", "b", "c")):
        state, _ = ENGINE.apply(state, SeatPlayer(player, number, 1_000))
        if player == "b":
            state, _ = ENGINE.apply(state, Act("b", {"action": "sit_out"}))
    state, _ = ENGINE.apply(state, StartHand(hashlib.sha256(b"two").digest()))
    hand = state.hand
    assert hand is not None and hand.ids == ("a", "c")
    assert not hand.dead_small_blind and hand.bets == [10, 20]


@pytest.mark.parametrize(
    "options",
    [
        {"dead_small_blind": True},  # not a tournament hand's table
        {"seats": 2, "hand_players": 2, "dead_small_blind": True},  # heads-up (rule 9)
        {"seats": 4, "hand_players": 4, "dead_small_blind": "yes"},
    ],
)
def test_a_dead_small_blind_option_the_table_cannot_play_is_refused(
    options: dict[str, Any],
) -> None:
    with pytest.raises(Malformed) as refused:
        ENGINE.open({"blinds": [10, 20], **options})
    assert status_name(refused.value) == "invalid_argument"
    assert "options.dead_small_blind" in refused.value.message
