"""The provably fair stream: deterministic, committed, unbiased."""

from __future__ import annotations

import collections
import hashlib

from croupier.game.fairness import FairStream, commitment, dice, shuffled
from croupier.kit.seeds import new_seed

SEED = bytes(range(32))


def test_commitment_is_sha256_of_seed() -> None:
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()


def test_same_seed_same_deck_and_labels_are_independent() -> None:
    deck = list(range(52))
    assert shuffled(deck, SEED) == shuffled(deck, SEED)
    assert shuffled(deck, SEED) != shuffled(deck, SEED, label="other")
    assert sorted(shuffled(deck, SEED)) == deck


def test_different_seeds_give_different_decks() -> None:
    deck = list(range(52))
    assert shuffled(deck, new_seed()) != shuffled(deck, new_seed())


def test_below_is_uniform_for_a_non_power_of_two() -> None:
    stream = FairStream(SEED, "uniformity")
    counts = collections.Counter(stream.below(3) for _ in range(30_000))
    assert set(counts) == {0, 1, 2}
    # 30,000 draws: each bucket 10,000 ± 4 sigma (~326).
    assert all(abs(count - 10_000) < 330 for count in counts.values())


def test_dice_are_between_one_and_six() -> None:
    rolls = dice(SEED, 500)
    assert {d for pair in rolls for d in pair} == {1, 2, 3, 4, 5, 6}
