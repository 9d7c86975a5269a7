"""Base game items 6–8: following suit, trumping, joker uses and the trick's winner."""

from __future__ import annotations

import pytest

from croupier.joker.core.cards import DECK, Suit, card, cards
from croupier.joker.core.errors import (
    InvalidJokerUse,
    MustFollowSuit,
    MustPlayHighest,
    MustPlayTrump,
)
from croupier.joker.core.tricks import JokerUse, Play, check_play, legal_cards, trick_winner

H, D, C, S = Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS, Suit.SPADES


def trick(*plays: str | tuple[str, str] | tuple[str, str, str]) -> list[Play]:
    """Plays by seats 0, 1, 2, 3: "Ah", ("X1", "under"), ("X1", "high", "h")."""
    built: list[Play] = []
    for seat, spec in enumerate(plays):
        if isinstance(spec, str):
            built.append(Play(seat, card(spec)))
        else:
            suit = Suit(spec[2]) if len(spec) == 3 else None
            built.append(Play(seat, card(spec[0]), JokerUse(spec[1]), suit))
    return built


def test_bg2_deck_has_36_cards_jokers_replace_black_sixes() -> None:
    codes = {c.code for c in DECK}
    assert len(DECK) == 36 and len(codes) == 36
    assert "6c" not in codes and "6s" not in codes
    assert {"6h", "6d", "X1", "X2", "7c", "7s"} <= codes


def test_bg6_must_follow_suit() -> None:
    hand = cards(["9h", "Ad", "Ks"])
    assert legal_cards(hand, trick("Th"), D) == [card("9h")]
    with pytest.raises(MustFollowSuit):
        check_play(hand, trick("Th"), D, Play(1, card("Ad")))


def test_bg6_void_must_trump_if_able() -> None:
    hand = cards(["Ad", "7d", "Ks"])
    assert legal_cards(hand, trick("Th"), D) == list(cards(["Ad", "7d"]))
    with pytest.raises(MustPlayTrump):
        check_play(hand, trick("Th"), D, Play(1, card("Ks")))


def test_bg6_void_without_trump_plays_anything() -> None:
    hand = cards(["Ac", "Ks"])
    assert legal_cards(hand, trick("Th"), D) == list(hand)
    assert legal_cards(hand, trick("Th"), None) == list(hand)


def test_bg6_joker_may_be_played_any_time() -> None:
    hand = cards(["9h", "X2"])
    assert card("X2") in legal_cards(hand, trick("Th"), D)
    check_play(hand, trick("Th"), D, Play(1, card("X2"), JokerUse.UNDER))


def test_bg6_highest_trump_wins_else_highest_of_led_suit() -> None:
    assert trick_winner(trick("Th", "Ah", "7d", "Kh"), D) == 2
    assert trick_winner(trick("Th", "Ah", "7d", "Jd"), D) == 3
    assert trick_winner(trick("Th", "Ah", "As", "Kh"), D) == 1
    assert trick_winner(trick("Th", "As", "Ac", "Ad"), None) == 0


def test_bg7_joker_led_high_others_must_play_highest_of_suit() -> None:
    hand = cards(["9h", "Qh", "Ad"])
    led = trick(("X1", "high", "h"))
    assert legal_cards(hand, led, D) == [card("Qh")]
    with pytest.raises(MustPlayHighest):
        check_play(hand, led, D, Play(1, card("9h")))


def test_bg7_joker_led_high_void_must_trump() -> None:
    assert legal_cards(cards(["7d", "As"]), trick(("X1", "high", "h")), D) == [card("7d")]


def test_bg7_joker_led_high_wins_unless_trumped() -> None:
    assert trick_winner(trick(("X1", "high", "h"), "Ah", "Kh", "Qh"), D) == 0
    assert trick_winner(trick(("X1", "high", "h"), "Ah", "7d", "Qh"), D) == 2
    assert trick_winner(trick(("X1", "high", "h"), "Ah", "7d", "8d"), D) == 3


def test_bg7_joker_led_high_in_the_trump_suit_cannot_be_trumped() -> None:
    assert trick_winner(trick(("X1", "high", "d"), "Ad", "Kd", "7c"), D) == 0


def test_bg7_joker_led_high_beaten_by_other_joker_high() -> None:
    assert trick_winner(trick(("X1", "high", "h"), "Ah", ("X2", "high"), "7d"), D) == 2
    assert trick_winner(trick(("X1", "high", "h"), "Ah", ("X2", "under"), "Kh"), D) == 0


def test_bg7_joker_led_take_is_lowest_of_its_suit() -> None:
    assert trick_winner(trick(("X1", "take", "h"), "6h", "Ac", "As"), None) == 1
    assert trick_winner(trick(("X1", "take", "h"), "Ac", "As", "Ad"), None) == 0
    assert trick_winner(trick(("X1", "take", "h"), "Ac", "7d", "Ah"), D) == 2
    assert trick_winner(trick(("X1", "take", "d"), "Ac", "Ks", "Ah"), D) == 0


def test_bg7_joker_led_take_others_follow_normally() -> None:
    hand = cards(["9h", "Qh", "Ad"])
    assert legal_cards(hand, trick(("X1", "take", "h")), D) == list(cards(["9h", "Qh"]))


def test_bg8_following_joker_high_beats_everything_so_far() -> None:
    assert trick_winner(trick("Ah", "Ad", ("X1", "high"), "Kd"), D) == 2


def test_bg8_later_high_joker_wins() -> None:
    assert trick_winner(trick("Ah", ("X1", "high"), ("X2", "high"), "Kd"), D) == 2


def test_bg8_following_joker_under_never_wins() -> None:
    assert trick_winner(trick("7h", ("X1", "under"), "6h", "8c"), D) == 0
    assert trick_winner(trick(("X1", "take", "h"), ("X2", "under"), "Ac", "As"), D) == 0


def test_oq15_joker_without_declared_use_is_refused() -> None:
    with pytest.raises(InvalidJokerUse):
        check_play(cards(["X1"]), [], None, Play(0, card("X1")))
    with pytest.raises(InvalidJokerUse):
        check_play(cards(["X1"]), [], None, Play(0, card("X1"), JokerUse.HIGH))  # no suit
    with pytest.raises(InvalidJokerUse):
        check_play(cards(["X1"]), [], None, Play(0, card("X1"), JokerUse.UNDER, H))
    with pytest.raises(InvalidJokerUse):
        check_play(cards(["X1"]), trick("Ah"), None, Play(1, card("X1"), JokerUse.TAKE))
    with pytest.raises(InvalidJokerUse):
        check_play(cards(["Ah"]), [], None, Play(0, card("Ah"), JokerUse.HIGH, H))
