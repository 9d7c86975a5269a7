"""Why an action was refused: one root error with a machine-readable reason.

Every refusal is a `RummyError`, a `croupier.game.RuleBroken` with a rummy-specific
`reason` (e.g. `"already_drew"`), which the conformance output reports as its `code`; an
action wrong in itself (an unknown action, a set that is no meld) is a
`MalformedRummyAction`. Messages never name another player's cards.
"""

from __future__ import annotations

from croupier.game import Malformed, RuleBroken

__all__ = ["MalformedRummyAction", "RummyError"]


class RummyError(RuleBroken):
    """An action the rules refuse; the state it was tried on is unchanged."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message, reason)


class MalformedRummyAction(RummyError, Malformed):
    """An action wrong in itself: an unknown action, a set of cards that is no meld."""
