"""The least-deadwood meld arrangement: exact (checked against brute force), jokers included."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from croupier.rummy.core import gin, rummy40, rummy51, rummy500
from croupier.rummy.core.arrangement import best_arrangement, brute_force_min_deadwood
from croupier.rummy.core.cards import is_joker, parse_cards, standard_deck
from croupier.rummy.core.melds import MeldRules, classify_meld
from croupier.rummy.core.variant import VariantRules


def _check_consistent(cards: list[int], rules: VariantRules) -> int:
    result = best_arrangement(cards, rules.melds, rules.values)
    used = Counter(result.deadwood_cards)
    for meld in result.melds:
        assert classify_meld(list(meld), rules.melds) is not None, meld
        used.update(meld)
    assert used == Counter(cards)
    assert result.deadwood == sum(rules.values[c] for c in result.deadwood_cards)
    return result.deadwood


def _random_hand(rng: random.Random, deck: list[int], size: int, max_jokers: int) -> list[int]:
    while True:
        hand = rng.sample(deck, size)
        if sum(is_joker(c) for c in hand) <= max_jokers:
            return hand


@pytest.mark.parametrize("size", [10, 11])
def test_gin_hands_match_brute_force(size: int) -> None:
    rng = random.Random(1000 + size)
    deck = standard_deck()
    for _ in range(300):
        hand = rng.sample(deck, size)
        exact = brute_force_min_deadwood(hand, gin.RULES.melds, gin.RULES.values)
        assert _check_consistent(hand, gin.RULES) == exact, hand


def test_rummy51_14_card_hands_with_up_to_2_jokers_match_brute_force() -> None:
    rng = random.Random(51)
    deck = standard_deck(2, 4)
    for _ in range(200):
        hand = _random_hand(rng, deck, 14, 2)
        exact = brute_force_min_deadwood(hand, rummy51.RULES.melds, rummy51.RULES.values)
        assert _check_consistent(hand, rummy51.RULES) == exact, hand


@pytest.mark.parametrize("rules", [rummy40.RULES, rummy500.RULES], ids=["rummy40", "rummy500"])
def test_other_variants_with_many_jokers_match_brute_force(rules: VariantRules) -> None:
    rng = random.Random(rules.name)
    deck = standard_deck(rules.decks, rules.jokers)
    for _ in range(80):
        hand = _random_hand(rng, deck, 13, 4)
        exact = brute_force_min_deadwood(hand, rules.melds, rules.values)
        assert _check_consistent(hand, rules) == exact, hand


def test_meld_dense_hands_match_brute_force() -> None:
    """Hands drawn from few ranks and suits, where melds overlap the most."""
    rng = random.Random(7)
    pool = [c for c in standard_deck(2, 4) if is_joker(c) or (c % 13) < 6]
    rules = rummy51.RULES
    for _ in range(120):
        hand = _random_hand(rng, pool, 14, 2)
        exact = brute_force_min_deadwood(hand, rules.melds, rules.values)
        assert _check_consistent(hand, rules) == exact, hand


def test_min_naturals_rule_is_respected() -> None:
    strict = MeldRules(ace_high=True, jokers_wild=True, min_naturals=2)
    values = rummy51.RULES.values
    hand = parse_cards(["5h", "X1", "X2", "9c"])
    assert best_arrangement(hand, strict, values).deadwood == 5 + 25 + 25 + 9
    assert best_arrangement(hand, rummy51.RULES.melds, values).deadwood == 5  # 9c X1 X2
    assert brute_force_min_deadwood(hand, strict, values) == 64


def test_two_copies_of_a_card_can_serve_two_runs() -> None:
    """Two-deck hands: Td-Jd-Qd and Qd-Kd-Ad use one queen each."""
    hand = parse_cards(["Td", "Jd", "Qd", "Qd", "Kd", "Ad"])
    assert best_arrangement(hand, rummy51.RULES.melds, rummy51.RULES.values).deadwood == 0


def test_gin_ace_is_low_only() -> None:
    """Gin (pagat): Q-K-A is not a run; A-2-3 is."""
    rules = gin.RULES
    assert (
        best_arrangement(parse_cards(["Qh", "Kh", "Ah"]), rules.melds, rules.values).deadwood == 21
    )
    assert (
        best_arrangement(parse_cards(["Ah", "2h", "3h"]), rules.melds, rules.values).deadwood == 0
    )


def test_no_round_the_corner_runs() -> None:
    rules = rummy51.RULES
    hand = parse_cards(["Kh", "Ah", "2h"])
    assert best_arrangement(hand, rules.melds, rules.values).deadwood == 10 + 11 + 2


def test_known_gin_hand_prefers_the_cheaper_overlap() -> None:
    """7h is in both 7-7-7 and 5h-6h-7h: the arrangement keeps the lower deadwood."""
    rules = gin.RULES
    hand = parse_cards(["7c", "7d", "7h", "5h", "6h", "Kc", "Qd", "2s", "3s", "4s"])
    result = best_arrangement(hand, rules.melds, rules.values)
    assert result.deadwood == min(
        brute_force_min_deadwood(hand, rules.melds, rules.values), result.deadwood
    )
    # 7c-7d-7h + 2s-3s-4s leave 5h 6h Kc Qd (31); 5h-6h-7h would leave 7c 7d Kc Qd (34)
    assert result.deadwood == 5 + 6 + 10 + 10
