"""Why the engine refuses an action. One root, `IllegalAction`, and a class per broken rule.

Every error is a `croupier.game.RuleBroken` with a machine-readable `reason` (what broke,
e.g. `dealer_bid_forbidden`); its kind says how callers react (`Malformed` for a malformed
action, plain `RuleBroken` for a well-formed action the rules forbid now, `Unknown` for an
unknown player). Messages never name another player's cards. A refused action leaves the
state unchanged: states are immutable and a rejection raises before anything is built.
"""

from __future__ import annotations

from croupier.game import Malformed, RuleBroken, Unknown

__all__ = [
    "BidOutOfRange",
    "CardNotHeld",
    "DealerBidForbidden",
    "IllegalAction",
    "InvalidAction",
    "InvalidJokerUse",
    "MustFollowSuit",
    "MustPlayHighest",
    "MustPlayTrump",
    "NotYourTurn",
    "UnknownPlayer",
    "WrongPhase",
]


class IllegalAction(RuleBroken):
    """An action the rules do not allow here. Subclasses set `reason`."""

    reason = "illegal_action"


class InvalidAction(IllegalAction, Malformed):
    """The action is malformed: unknown name, a missing or mistyped field."""

    reason = "invalid_action"


class InvalidJokerUse(IllegalAction, Malformed):
    """A joker played without a declared use, with a use that does not fit, or a bad suit."""

    reason = "invalid_joker_use"


class UnknownPlayer(IllegalAction, Unknown):
    reason = "unknown_player"


class NotYourTurn(IllegalAction):
    reason = "not_your_turn"


class WrongPhase(IllegalAction):
    """The action belongs to another phase (a bid during play, anything after the hand)."""

    reason = "wrong_phase"


class BidOutOfRange(IllegalAction, Malformed):
    reason = "bid_out_of_range"


class DealerBidForbidden(IllegalAction):
    """The dealer's bid would make the bids add up to the number of cards (BG 5)."""

    reason = "dealer_bid_forbidden"


class CardNotHeld(IllegalAction):
    reason = "card_not_held"


class MustFollowSuit(IllegalAction):
    reason = "must_follow_suit"


class MustPlayTrump(IllegalAction):
    reason = "must_play_trump"


class MustPlayHighest(IllegalAction):
    """A joker was led "high": the highest card of the named suit must be played (BG 7)."""

    reason = "must_play_highest"
