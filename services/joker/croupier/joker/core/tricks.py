"""One trick: which cards may be played and who wins (base game items 6–8).

Following (BG 6): a player must follow the led suit; void in it, he must play a trump if he
has one; otherwise any card. A joker may be played at any time, even by a player who could
follow suit, and every joker play carries its declared use (OQ 15):

- led `high` + suit (BG 7): the others must play their *highest* card of that suit (void:
  a trump if able, else anything). The joker wins unless a trump is played (when the named
  suit is not trump) or the other joker follows `high`.
- led `take` + suit: the joker is the lowest card of that suit, which becomes the led suit;
  the highest card of that suit or the highest trump wins; the joker wins only when nobody
  else plays that suit or a trump (or follows with a high joker).
- following `high` (BG 8): beats everything played so far, trumps included; only the other
  joker played `high` later in the trick beats it.
- following `under`: the lowest card of all; it never wins.

Pure functions over immutable values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from croupier.joker.core.cards import Card, Suit
from croupier.joker.core.errors import (
    InvalidJokerUse,
    MustFollowSuit,
    MustPlayHighest,
    MustPlayTrump,
)

__all__ = [
    "JokerUse",
    "Play",
    "check_play",
    "led_suit",
    "legal_cards",
    "trick_winner",
]


class JokerUse(StrEnum):
    HIGH = "high"
    TAKE = "take"
    UNDER = "under"


LEAD_USES = (JokerUse.HIGH, JokerUse.TAKE)
FOLLOW_USES = (JokerUse.HIGH, JokerUse.UNDER)


@dataclass(frozen=True, slots=True)
class Play:
    """A card put into a trick; for a joker, its declared use and (when led) its suit."""

    seat: int
    card: Card
    use: JokerUse | None = None
    suit: Suit | None = None

    def to_json(self) -> dict[str, str]:
        data = {"card": self.card.code}
        if self.use is not None:
            data["joker"] = self.use.value
        if self.suit is not None:
            data["suit"] = self.suit.value
        return data


def led_suit(trick: Sequence[Play]) -> tuple[Suit, bool]:
    """The suit the others must follow and whether they must play their highest of it."""
    lead = trick[0]
    if lead.card.is_joker:
        assert lead.suit is not None
        return lead.suit, lead.use is JokerUse.HIGH
    assert lead.card.suit is not None
    return lead.card.suit, False


def legal_cards(hand: Sequence[Card], trick: Sequence[Play], trump: Suit | None) -> list[Card]:
    """The cards of `hand` that may be played into `trick` (jokers always among them)."""
    if not trick:
        return list(hand)
    suit, highest = led_suit(trick)
    jokers = [c for c in hand if c.is_joker]
    same = [c for c in hand if c.suit is suit]
    if same:
        if highest:
            same = [max(same, key=lambda c: c.rank)]
        return same + jokers
    if trump is not None:
        trumps = [c for c in hand if c.suit is trump]
        if trumps:
            return trumps + jokers
    return list(hand)


def check_play(hand: Sequence[Card], trick: Sequence[Play], trump: Suit | None, play: Play) -> None:
    """Raise the rule the play breaks, if any (the card is known to be held)."""
    leading = not trick
    if play.card.is_joker:
        if play.use is None:
            raise InvalidJokerUse("a joker must be played with a declared use")
        allowed = LEAD_USES if leading else FOLLOW_USES
        if play.use not in allowed:
            names = " or ".join(u.value for u in allowed)
            when = "leading" if leading else "following"
            raise InvalidJokerUse(f"a joker {when} is played {names}, not {play.use.value}")
        if leading and play.suit is None:
            raise InvalidJokerUse("a led joker names a suit: c, d, h or s")
        if not leading and play.suit is not None:
            raise InvalidJokerUse("a following joker names no suit")
        return
    if play.use is not None or play.suit is not None:
        raise InvalidJokerUse("only a joker carries a declared use")
    if leading or play.card in legal_cards(hand, trick, trump):
        return
    suit, highest = led_suit(trick)
    if any(c.suit is suit for c in hand):
        if highest:
            raise MustPlayHighest(f"the joker asked for the highest {suit.value}: play it")
        raise MustFollowSuit(f"a card of the led suit {suit.value} must be played when held")
    raise MustPlayTrump("void in the led suit: a trump must be played when held")


def trick_winner(trick: Sequence[Play], trump: Suit | None) -> int:
    """The seat that takes the trick (all four plays made)."""
    lead = trick[0]
    high_jokers = [p for p in trick[1:] if p.card.is_joker and p.use is JokerUse.HIGH]
    if high_jokers:
        return high_jokers[-1].seat
    trumps = [p for p in trick if not p.card.is_joker and p.card.suit is trump]
    if lead.card.is_joker and lead.use is JokerUse.HIGH:
        if trumps and lead.suit is not trump:
            return max(trumps, key=lambda p: p.card.rank).seat
        return lead.seat
    if trumps:
        return max(trumps, key=lambda p: p.card.rank).seat
    suit, _ = led_suit(trick)
    best = lead  # a joker led `take` is the lowest card of its suit
    for p in trick[1:]:
        if p.card.is_joker or p.card.suit is not suit:
            continue
        if best.card.is_joker or p.card.rank > best.card.rank:
            best = p
    return best.seat
