"""Joker's cards and hand outcomes come back from a snapshot as shared values: a card as
the deck's own card, an outcome as the one object for its numbers (decoding a table late
in its game rebuilt a few dozen of each, most of the time a start-up from snapshots grew
with the tables' age)."""

from __future__ import annotations

import pickle

from croupier.joker.core.cards import DECK, card
from croupier.joker.core.scoring import HandOutcome, hand_score


def test_a_card_unpickles_as_the_decks_own_card() -> None:
    for each in DECK:
        assert pickle.loads(pickle.dumps(each)) is each
    assert pickle.loads(pickle.dumps((card("Ah"), card("X1")))) == (card("Ah"), card("X1"))


def test_an_outcome_unpickles_as_one_shared_value_equal_to_the_original() -> None:
    outcome = HandOutcome(bid=3, took=2, cards=9)
    first, second = (pickle.loads(pickle.dumps(HandOutcome(3, 2, 9))) for _ in range(2))
    assert first == outcome and first is second
    assert hand_score(first) == hand_score(outcome) == 20
    assert pickle.loads(pickle.dumps(HandOutcome(2, 0, 5))).khishti
