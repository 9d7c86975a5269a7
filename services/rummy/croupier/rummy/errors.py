"""Why an action was refused: one root error with a machine-readable reason.

Every refusal is a `croupier.table.engine.Rejected` (so the table host maps it without a
translation table) carrying the gRPC-style `code` the host expects and a rummy-specific
`reason` (e.g. `"already_drew"`), which the conformance output reports as its `code`.
Messages never name another player's cards.
"""

from __future__ import annotations

from croupier.table.engine import Rejected

__all__ = ["RummyError"]

_PRECONDITION = "failed_precondition"
_ARGUMENT = "invalid_argument"

# reason → gRPC-style code
_CODES = {
    "not_your_turn": _PRECONDITION,
    "hand_over": _PRECONDITION,
    "wrong_phase": _PRECONDITION,
    "already_drew": _PRECONDITION,
    "must_draw_first": _PRECONDITION,
    "empty_pile": _PRECONDITION,
    "card_not_held": _PRECONDITION,
    "invalid_meld": _ARGUMENT,
    "meld_not_held": _PRECONDITION,
    "opening_below_minimum": _PRECONDITION,
    "not_opened": _PRECONDITION,
    "knock_over_limit": _PRECONDITION,
    "not_gin": _PRECONDITION,
    "layoff_on_gin": _PRECONDITION,
    "invalid_layoff": _PRECONDITION,
    "no_such_meld": _ARGUMENT,
    "discard_taken_card": _PRECONDITION,
    "discard_could_lay_off": _PRECONDITION,
    "taken_card_not_melded": _PRECONDITION,
    "joker_not_played": _PRECONDITION,
    "cannot_go_out": _PRECONDITION,
    "unknown_action": _ARGUMENT,
    "bad_action": _ARGUMENT,
}


class RummyError(Rejected):
    """An action the rules refuse; the state it was tried on is unchanged."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(_CODES.get(reason, _PRECONDITION), message)
        self.reason = reason
