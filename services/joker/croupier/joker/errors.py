"""Why the engine refuses an action. One root, `IllegalAction`, and a class per broken rule.

Every error has a machine-readable `code` (what broke, e.g. `dealer_bid_forbidden`) and a
`status` for the table host's `Rejected` ("invalid_argument" for a malformed action,
"failed_precondition" for a well-formed action the rules forbid now, "not_found" for an
unknown player). Messages never name another player's cards. A refused action leaves the
state unchanged: states are immutable and a rejection raises before anything is built.
"""

from __future__ import annotations

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


class IllegalAction(Exception):
    """An action the rules do not allow here. Subclasses set `code` and `status`."""

    code = "illegal_action"
    status = "failed_precondition"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidAction(IllegalAction):
    """The action is malformed: unknown name, a missing or mistyped field."""

    code = "invalid_action"
    status = "invalid_argument"


class InvalidJokerUse(IllegalAction):
    """A joker played without a declared use, with a use that does not fit, or a bad suit."""

    code = "invalid_joker_use"
    status = "invalid_argument"


class UnknownPlayer(IllegalAction):
    code = "unknown_player"
    status = "not_found"


class NotYourTurn(IllegalAction):
    code = "not_your_turn"


class WrongPhase(IllegalAction):
    """The action belongs to another phase (a bid during play, anything after the hand)."""

    code = "wrong_phase"


class BidOutOfRange(IllegalAction):
    code = "bid_out_of_range"
    status = "invalid_argument"


class DealerBidForbidden(IllegalAction):
    """The dealer's bid would make the bids add up to the number of cards (BG 5)."""

    code = "dealer_bid_forbidden"


class CardNotHeld(IllegalAction):
    code = "card_not_held"


class MustFollowSuit(IllegalAction):
    code = "must_follow_suit"


class MustPlayTrump(IllegalAction):
    code = "must_play_trump"


class MustPlayHighest(IllegalAction):
    """A joker was led "high": the highest card of the named suit must be played (BG 7)."""

    code = "must_play_highest"
