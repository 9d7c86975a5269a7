"""One hand: dealing and trump (BG 4), bidding and the dealer rule (BG 5), turn order
(BG 6), refused actions leaving the state unchanged, and timeout auto-play (OQ 14)."""

from __future__ import annotations

from typing import Any

import pytest

from croupier.joker.core.cards import DECK, Suit, card, cards
from croupier.joker.core.errors import (
    BidOutOfRange,
    CardNotHeld,
    DealerBidForbidden,
    IllegalAction,
    InvalidAction,
    InvalidJokerUse,
    MustFollowSuit,
    NotYourTurn,
    WrongPhase,
)
from croupier.joker.core.hand import (
    Bid,
    DeclareTrump,
    HandState,
    Phase,
    PlayCard,
    apply,
    deal,
    legal_actions,
    new_hand,
    parse_command,
    timeout_command,
)
from croupier.joker.core.tricks import JokerUse
from tests.support.refusals import status_name


def three_card_hand(trump_card: str = "Qd") -> HandState:
    """Dealer seat 3; seat 0 bids and leads first."""
    return new_hand(
        [
            cards(["Ah", "7c", "X1"]),
            cards(["9h", "Kd", "8s"]),
            cards(["Th", "6d", "As"]),
            cards(["Jc", "Qc", "X2"]),
        ],
        dealer=3,
        cards=3,
        trump_card=card(trump_card),
    )


def run(state: HandState, *steps: tuple[int, dict[str, Any]]) -> HandState:
    for seat, action in steps:
        state, _ = apply(state, seat, parse_command(action))
    return state


def bid(n: int) -> dict[str, Any]:
    return {"action": "bid", "tricks": n}


def play(code: str, joker: str | None = None, suit: str | None = None) -> dict[str, Any]:
    action: dict[str, Any] = {"action": "play", "card": code}
    if joker:
        action["joker"] = joker
    if suit:
        action["suit"] = suit
    return action


def test_bg4_turned_card_sets_trump_in_short_hands() -> None:
    hand = deal(DECK, dealer=0, cards=5)
    assert hand.trump_card is DECK[20]
    assert hand.trump is DECK[20].suit and hand.phase is Phase.BIDDING
    assert [len(h) for h in hand.hands] == [5, 5, 5, 5]
    assert hand.hands[1][0] is DECK[0]  # one at a time from the dealer's left


def test_bg4_turned_joker_means_no_trump() -> None:
    hand = three_card_hand(trump_card="X2")
    hand = new_hand(
        [
            cards(["Ah", "7c", "X1"]),
            cards(["9h", "Kd", "8s"]),
            cards(["Th", "6d", "As"]),
            cards(["Jc", "Qc", "Qd"]),
        ],
        dealer=3,
        cards=3,
        trump_card=card("X2"),
    )
    assert hand.trump is None and hand.phase is Phase.BIDDING


def test_bg4_nine_card_hands_deal_everything_and_the_chooser_declares() -> None:
    hand = deal(DECK, dealer=2, cards=9)
    assert hand.trump_card is None and hand.phase is Phase.TRUMP
    assert sorted(len(h) for h in hand.hands) == [9, 9, 9, 9]
    chooser = 3
    assert hand.turn == chooser
    assert hand.visible_hand(chooser) == DECK[0:3]  # his first packet of three
    assert all(hand.visible_hand(s) == () for s in (0, 1, 2))
    assert legal_actions(hand, chooser)["suits"] == ["c", "d", "h", "s", "none"]
    with pytest.raises(WrongPhase):
        apply(hand, chooser, Bid(1))
    declared, events = apply(hand, chooser, DeclareTrump(Suit.HEARTS))
    assert declared.trump is Suit.HEARTS and declared.phase is Phase.BIDDING
    assert events[0].type == "trump_declared"
    no_trump, _ = apply(hand, chooser, DeclareTrump(None))
    assert no_trump.trump is None and len(no_trump.visible_hand(0)) == 9


def test_bg5_bidding_from_dealers_left_then_dealer_last() -> None:
    hand = three_card_hand()
    assert hand.turn == 0
    hand = run(hand, (0, bid(1)), (1, bid(0)), (2, bid(1)))
    assert hand.turn == 3
    assert legal_actions(hand, 3) == {"actions": ["bid"], "tricks": [0, 2, 3]}


def test_bg5_dealer_may_not_make_the_total_equal_n() -> None:
    hand = run(three_card_hand(), (0, bid(1)), (1, bid(0)), (2, bid(1)))
    with pytest.raises(DealerBidForbidden) as refused:
        apply(hand, 3, Bid(1))
    assert refused.value.reason == "dealer_bid_forbidden"
    assert status_name(refused.value) == "failed_precondition"


def test_bg5_dealer_bids_freely_when_excluded_number_is_impossible() -> None:
    hand = run(three_card_hand(), (0, bid(3)), (1, bid(2)), (2, bid(1)))
    assert legal_actions(hand, 3)["tricks"] == [0, 1, 2, 3]


def test_bg5_bid_out_of_range_and_out_of_turn() -> None:
    hand = three_card_hand()
    with pytest.raises(BidOutOfRange):
        apply(hand, 0, Bid(4))
    with pytest.raises(NotYourTurn):
        apply(hand, 1, Bid(0))


def test_bg6_dealers_left_leads_and_trick_winner_leads_next() -> None:
    hand = run(three_card_hand(), (0, bid(1)), (1, bid(0)), (2, bid(1)), (3, bid(0)))
    assert hand.phase is Phase.PLAYING and hand.turn == 0
    hand = run(hand, (0, play("Ah")), (1, play("9h")), (2, play("Th")), (3, play("Jc")))
    assert hand.taken == (1, 0, 0, 0) and hand.turn == 0
    hand = run(hand, (0, play("7c")), (1, play("Kd")), (2, play("6d")), (3, play("Qc")))
    assert hand.taken == (1, 1, 0, 0) and hand.turn == 1
    hand = run(
        hand, (1, play("8s")), (2, play("As")), (3, play("X2", "high")), (0, play("X1", "high"))
    )
    assert hand.phase is Phase.COMPLETE and hand.taken == (2, 1, 0, 0)
    assert [o.fulfilled for o in hand.outcomes()] == [False, False, False, True]


REFUSALS = [
    ("bidding out of turn", [], 2, bid(1), NotYourTurn),
    (
        "dealer's forbidden bid",
        [(0, bid(1)), (1, bid(0)), (2, bid(1))],
        3,
        bid(1),
        DealerBidForbidden,
    ),
    (
        "card not held",
        [(0, bid(1)), (1, bid(0)), (2, bid(1)), (3, bid(0))],
        0,
        play("Kh"),
        CardNotHeld,
    ),
    (
        "not following suit",
        [(0, bid(1)), (1, bid(0)), (2, bid(1)), (3, bid(0)), (0, play("Ah"))],
        1,
        play("Kd"),
        MustFollowSuit,
    ),
    (
        "joker without a use",
        [(0, bid(1)), (1, bid(0)), (2, bid(1)), (3, bid(0))],
        0,
        play("X1"),
        InvalidJokerUse,
    ),
    (
        "joker led without a suit",
        [(0, bid(1)), (1, bid(0)), (2, bid(1)), (3, bid(0))],
        0,
        play("X1", "high"),
        InvalidJokerUse,
    ),
    ("play during bidding", [], 0, play("Ah"), WrongPhase),
    ("unknown action", [], 0, {"action": "double"}, InvalidAction),
]


@pytest.mark.parametrize(
    ("why", "before", "seat", "action", "error"), REFUSALS, ids=[r[0] for r in REFUSALS]
)
def test_bad_input_is_refused_with_code_and_state_unchanged(
    why: str,
    before: list[tuple[int, dict[str, Any]]],
    seat: int,
    action: dict[str, Any],
    error: type[IllegalAction],
) -> None:
    state = run(three_card_hand(), *before)
    with pytest.raises(error) as refused:
        apply(state, seat, parse_command(action))
    assert refused.value.reason and refused.value.message
    assert state == run(three_card_hand(), *before)


def test_invalid_joker_suit_is_refused() -> None:
    with pytest.raises(InvalidJokerUse):
        parse_command(play("X1", "high", "x"))
    with pytest.raises(InvalidJokerUse):
        parse_command(play("X1", "sideways", "h"))


def test_error_messages_never_name_other_players_cards() -> None:
    state = run(
        three_card_hand(), (0, bid(1)), (1, bid(0)), (2, bid(1)), (3, bid(0)), (0, play("Ah"))
    )
    hidden = {c.code for s in (0, 2, 3) for c in state.hands[s]}
    for action in (play("Kd"), play("8s"), play("Jc")):
        with pytest.raises(IllegalAction) as refused:
            apply(state, 1, parse_command(action))
        named = action["card"]
        assert not any(code in refused.value.message for code in hidden - {named})


def test_oq14_timeout_bids_pass_where_legal_never_breaking_dealer_rule() -> None:
    hand = three_card_hand()
    assert timeout_command(hand, 0) == Bid(0)
    hand = run(hand, (0, bid(1)), (1, bid(1)), (2, bid(1)))  # dealer may not pass
    assert timeout_command(hand, 3) == Bid(1)
    hand = run(three_card_hand(), (0, bid(0)), (1, bid(0)), (2, bid(0)))  # 3 forbidden
    assert timeout_command(hand, 3) == Bid(0)


def test_oq14_timeout_plays_lowest_legal_card_and_joker_under() -> None:
    hand = run(three_card_hand(), (0, bid(1)), (1, bid(0)), (2, bid(1)), (3, bid(0)))
    assert timeout_command(hand, 0) == PlayCard(card("7c"))  # non-trump, lowest rank
    hand = run(hand, (0, play("7c")))
    assert timeout_command(hand, 1) == PlayCard(card("Kd"))  # void in clubs: must trump
    hand = run(hand, (1, play("Kd")))
    assert timeout_command(hand, 2) == PlayCard(card("6d"))
    hand = run(hand, (2, play("6d")))
    assert timeout_command(hand, 3) == PlayCard(card("Jc"))
    only_joker = new_hand(
        [cards(["X1"]), cards(["Ah"]), cards(["Kh"]), cards(["Qh"])],
        dealer=0,
        cards=1,
        trump_card=card("7d"),
    )
    only_joker = run(only_joker, (1, bid(0)), (2, bid(0)), (3, bid(0)), (0, bid(0)))
    only_joker = run(only_joker, (1, play("Ah")), (2, play("Kh")), (3, play("Qh")))
    assert timeout_command(only_joker, 0) == PlayCard(card("X1"), JokerUse.UNDER)


def test_oq14_timeout_trump_choice_is_no_trump() -> None:
    hand = deal(DECK, dealer=0, cards=9)
    assert timeout_command(hand, 1) == DeclareTrump(None)
