"""One hand (deal) of Joker as an immutable state machine: trump, bidding, tricks.

Seats are 0..3 clockwise; the game module maps them to player names. Decisions (base
game items 4–8, each to be confirmed with the product owner):

- Deal order (BG 4): from a deck order, top first. In hands of 1–8 cards the cards go one
  at a time clockwise from the dealer's left, and the next card is turned for trump (a
  joker: no trump). Nine-card hands deal all 36 cards in packets of three, clockwise from
  the dealer's left; the player left of the dealer sees his first packet and declares a
  trump suit or no trump before the rest is seen (`trump` phase).
- Bidding (BG 5): from the dealer's left, once each, 0 (pass) to n; the dealer, last, may
  not bid the number that makes the bids add up to n.
- Play (BG 6): the player left of the dealer leads the first trick; the winner of a trick
  leads the next. Following and joker rules are in `croupier.joker.core.tricks`.
- Timeout (OQ 14: an auto-played hand counts like any other): trump phase → no trump;
  bidding → pass, or the lowest legal bid when the dealer may not pass; play → the lowest
  legal plain card (non-trumps before trumps, then by rank, then suit order), a joker only
  when nothing else is legal (`under` when following, `take` + clubs when leading).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from croupier.game import Event
from croupier.joker.core.cards import Card, Suit, UnknownCard, card
from croupier.joker.core.errors import (
    BidOutOfRange,
    CardNotHeld,
    DealerBidForbidden,
    InvalidAction,
    InvalidJokerUse,
    NotYourTurn,
    WrongPhase,
)
from croupier.joker.core.scoring import HandOutcome
from croupier.joker.core.tricks import (
    FOLLOW_USES,
    LEAD_USES,
    JokerUse,
    Play,
    check_play,
    legal_cards,
    trick_winner,
)

__all__ = [
    "SEATS",
    "Bid",
    "Command",
    "DeclareTrump",
    "HandState",
    "Phase",
    "PlayCard",
    "apply",
    "deal",
    "legal_actions",
    "new_hand",
    "parse_command",
    "timeout_command",
]

SEATS = 4
NINE = 9
TRUMP_PACKET = 3


class Phase(StrEnum):
    TRUMP = "trump"
    BIDDING = "bidding"
    PLAYING = "playing"
    COMPLETE = "complete"


@dataclass(frozen=True, slots=True)
class Bid:
    tricks: int


@dataclass(frozen=True, slots=True)
class DeclareTrump:
    suit: Suit | None  # None: no trump


@dataclass(frozen=True, slots=True)
class PlayCard:
    card: Card
    joker: JokerUse | None = None
    suit: Suit | None = None


Command = Bid | DeclareTrump | PlayCard


@dataclass(frozen=True, slots=True, kw_only=True)
class HandState:
    """Everything about one hand. Hands are in dealt order (the chooser's packet first)."""

    cards: int
    dealer: int
    hands: tuple[tuple[Card, ...], ...]
    trump_card: Card | None
    trump: Suit | None
    phase: Phase
    turn: int | None
    bids: tuple[int | None, ...]
    taken: tuple[int, ...]
    trick: tuple[Play, ...] = ()
    played: tuple[tuple[Play, ...], ...] = ()
    winners: tuple[int, ...] = ()

    @property
    def first(self) -> int:
        """The seat left of the dealer: trump chooser, first bidder, first leader."""
        return (self.dealer + 1) % SEATS

    def outcomes(self) -> tuple[HandOutcome, ...]:
        """Bid and tricks per seat (the hand must be complete)."""
        if self.phase is not Phase.COMPLETE:
            raise ValueError("the hand is not complete")
        return tuple(
            HandOutcome(bid=b or 0, took=t, cards=self.cards)
            for b, t in zip(self.bids, self.taken, strict=True)
        )

    def visible_hand(self, seat: int) -> tuple[Card, ...]:
        """The cards `seat` sees: only the first packet while the trump is being chosen."""
        if self.phase is Phase.TRUMP:
            return self.hands[seat][:TRUMP_PACKET] if seat == self.first else ()
        return self.hands[seat]


def new_hand(
    hands: Sequence[Sequence[Card]], dealer: int, cards: int, trump_card: Card | None
) -> HandState:
    """A hand from an explicit deal (conformance, tests). `trump_card` is None for nine."""
    if cards == NINE:
        phase, trump = Phase.TRUMP, None
    else:
        phase = Phase.BIDDING
        trump = None if trump_card is None else trump_card.suit
    return HandState(
        cards=cards,
        dealer=dealer,
        hands=tuple(tuple(h) for h in hands),
        trump_card=trump_card,
        trump=trump,
        phase=phase,
        turn=(dealer + 1) % SEATS,
        bids=(None,) * SEATS,
        taken=(0,) * SEATS,
    )


def deal(deck: Sequence[Card], dealer: int, cards: int) -> HandState:
    """Deal a hand from a deck order, top first (see the module docstring)."""
    hands: list[list[Card]] = [[] for _ in range(SEATS)]
    if cards == NINE:
        for packet in range(len(deck) // TRUMP_PACKET):
            seat = (dealer + 1 + packet) % SEATS
            hands[seat].extend(deck[packet * TRUMP_PACKET : (packet + 1) * TRUMP_PACKET])
        return new_hand(hands, dealer, cards, None)
    for index in range(cards * SEATS):
        hands[(dealer + 1 + index) % SEATS].append(deck[index])
    return new_hand(hands, dealer, cards, deck[cards * SEATS])


def forbidden_dealer_bid(state: HandState) -> int | None:
    """The one bid the dealer may not make, when it is a possible bid (BG 5)."""
    others = sum(b for s, b in enumerate(state.bids) if s != state.dealer and b is not None)
    excluded = state.cards - others
    return excluded if 0 <= excluded <= state.cards else None


def legal_bids(state: HandState) -> list[int]:
    bids = list(range(state.cards + 1))
    if state.turn == state.dealer:
        excluded = forbidden_dealer_bid(state)
        if excluded is not None:
            bids.remove(excluded)
    return bids


def legal_actions(state: HandState, seat: int) -> dict[str, Any]:
    """What `seat` may do now, in conformance notation (empty `actions` when not his turn)."""
    if state.turn != seat:
        return {"actions": []}
    if state.phase is Phase.TRUMP:
        return {"actions": ["trump"], "suits": [s.value for s in Suit] + ["none"]}
    if state.phase is Phase.BIDDING:
        return {"actions": ["bid"], "tricks": legal_bids(state)}
    playable = legal_cards(state.hands[seat], state.trick, state.trump)
    legal: dict[str, Any] = {"actions": ["play"], "cards": [c.code for c in playable]}
    if any(c.is_joker for c in playable):
        uses = FOLLOW_USES if state.trick else LEAD_USES
        legal["joker"] = [u.value for u in uses]
        if not state.trick:
            legal["suits"] = [s.value for s in Suit]
    return legal


def parse_command(action: dict[str, Any]) -> Command:
    """A command from conformance notation; raises InvalidAction / InvalidJokerUse."""
    name = action.get("action")
    if name == "bid":
        tricks = action.get("tricks")
        if not isinstance(tricks, int) or isinstance(tricks, bool):
            raise InvalidAction("a bid carries `tricks`, an integer")
        return Bid(tricks)
    if name == "trump":
        suit = action.get("suit")
        if suit == "none":
            return DeclareTrump(None)
        try:
            return DeclareTrump(Suit(str(suit)))
        except ValueError:
            raise InvalidAction("a trump declaration names c, d, h, s or none") from None
    if name == "play":
        code = action.get("card")
        if not isinstance(code, str):
            raise InvalidAction("a play carries `card`")
        try:
            played = card(code)
        except UnknownCard as exc:
            raise InvalidAction(str(exc)) from None
        use_name, suit_name = action.get("joker"), action.get("suit")
        try:
            use = None if use_name is None else JokerUse(use_name)
        except ValueError:
            raise InvalidJokerUse("a joker's use is high, take or under") from None
        try:
            suit = None if suit_name is None else Suit(suit_name)
        except ValueError:
            raise InvalidJokerUse("a joker's suit is c, d, h or s") from None
        return PlayCard(played, use, suit)
    raise InvalidAction(f"unknown action {name!r}: expected trump, bid or play")


def apply(state: HandState, seat: int, command: Command) -> tuple[HandState, list[Event]]:
    """Apply one player's command. Raises an IllegalAction subclass (state untouched)."""
    if state.phase is Phase.COMPLETE:
        raise WrongPhase("the hand is over")
    if state.turn != seat:
        raise NotYourTurn("it is not your turn")
    if isinstance(command, DeclareTrump):
        return _declare_trump(state, seat, command)
    if isinstance(command, Bid):
        return _bid(state, seat, command)
    return _play(state, seat, command)


def _declare_trump(
    state: HandState, seat: int, command: DeclareTrump
) -> tuple[HandState, list[Event]]:
    if state.phase is not Phase.TRUMP:
        raise WrongPhase("the trump is not being chosen now")
    suit = command.suit
    event = Event("trump_declared", {"seat": seat, "suit": suit.value if suit else "none"})
    return replace(state, trump=suit, phase=Phase.BIDDING), [event]


def _bid(state: HandState, seat: int, command: Bid) -> tuple[HandState, list[Event]]:
    if state.phase is not Phase.BIDDING:
        raise WrongPhase("bidding is over" if state.phase is Phase.PLAYING else "no bids yet")
    if not 0 <= command.tricks <= state.cards:
        raise BidOutOfRange(f"a bid is from 0 to {state.cards}")
    if seat == state.dealer and command.tricks == forbidden_dealer_bid(state):
        raise DealerBidForbidden(
            f"the dealer may not bid {command.tricks}: the bids would add up to {state.cards}"
        )
    bids = list(state.bids)
    bids[seat] = command.tricks
    events = [Event("bid_made", {"seat": seat, "tricks": command.tricks})]
    if seat == state.dealer:
        return replace(state, bids=tuple(bids), phase=Phase.PLAYING, turn=state.first), events
    return replace(state, bids=tuple(bids), turn=(seat + 1) % SEATS), events


def _play(state: HandState, seat: int, command: PlayCard) -> tuple[HandState, list[Event]]:
    if state.phase is not Phase.PLAYING:
        raise WrongPhase("cards are played after the bidding")
    held = state.hands[seat]
    if command.card not in held:
        raise CardNotHeld(f"you do not hold {command.card.code}")
    play = Play(seat, command.card, command.joker, command.suit)
    check_play(held, state.trick, state.trump, play)
    hands = list(state.hands)
    hands[seat] = tuple(c for c in held if c is not command.card)
    trick = (*state.trick, play)
    events = [Event("card_played", {"seat": seat, **play.to_json()})]
    if len(trick) < SEATS:
        return (
            replace(state, hands=tuple(hands), trick=trick, turn=(seat + 1) % SEATS),
            events,
        )
    winner = trick_winner(trick, state.trump)
    taken = list(state.taken)
    taken[winner] += 1
    played = (*state.played, trick)
    events.append(Event("trick_taken", {"seat": winner, "trick": len(played)}))
    done = len(played) == state.cards
    return (
        replace(
            state,
            hands=tuple(hands),
            trick=(),
            played=played,
            winners=(*state.winners, winner),
            taken=tuple(taken),
            turn=None if done else winner,
            phase=Phase.COMPLETE if done else Phase.PLAYING,
        ),
        events,
    )


_SUIT_ORDER = {suit: index for index, suit in enumerate(Suit)}


def timeout_command(state: HandState, seat: int) -> Command:
    """The automatic action when `seat`'s clock runs out (see the module docstring)."""
    if state.phase is Phase.TRUMP:
        return DeclareTrump(None)
    if state.phase is Phase.BIDDING:
        return Bid(legal_bids(state)[0])
    if state.phase is not Phase.PLAYING or state.turn != seat:
        raise WrongPhase("nothing to do now")
    playable = legal_cards(state.hands[seat], state.trick, state.trump)
    plain = [c for c in playable if not c.is_joker]
    if plain:
        lowest = min(
            plain,
            key=lambda c: (c.suit is state.trump, c.rank, _SUIT_ORDER[c.suit] if c.suit else 0),
        )
        return PlayCard(lowest)
    if state.trick:
        return PlayCard(playable[0], JokerUse.UNDER)
    return PlayCard(playable[0], JokerUse.TAKE, Suit.CLUBS)
