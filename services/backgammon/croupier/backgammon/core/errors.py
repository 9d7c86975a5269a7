"""What the backgammon engine refuses, named in the game's terms.

Every error is a `croupier.game.RuleBroken` of the kind that says how callers should
react: `Malformed` for a malformed action or option, `Unknown` for an unknown player,
`NotYours` for dice a seeded game does not allow, plain `RuleBroken` for a well-formed
action the rules do not allow now.
"""

from __future__ import annotations

from croupier.game import Malformed, NotYours, RuleBroken, Unknown

__all__ = [
    "BackgammonRejected",
    "CubeUnavailable",
    "DiceFromSeed",
    "EvaluationRefused",
    "IllegalMove",
    "InvalidAction",
    "NotYourTurn",
    "SeatUnavailable",
    "UnknownPlayer",
    "WrongPhase",
]


class BackgammonRejected(RuleBroken):
    """Root of the engine's errors."""


class InvalidAction(BackgammonRejected, Malformed):
    """A malformed action or table option (missing field, unknown name, bad dice)."""

    reason = "invalid_action"


class UnknownPlayer(BackgammonRejected, Unknown):
    """A player who is not at this table."""

    reason = "unknown_player"


class DiceFromSeed(BackgammonRejected, NotYours):
    """Explicit dice in a game whose dice come from its seed."""

    reason = "dice_from_seed"


class NotYourTurn(BackgammonRejected):
    """Another player must act now."""

    reason = "not_your_turn"


class WrongPhase(BackgammonRejected):
    """Not now: no game running, roll before moving, no double or resignation pending."""

    reason = "wrong_phase"


class IllegalMove(BackgammonRejected):
    """A play that does not lead to one of the roll's legal positions (rules 23-33)."""

    reason = "illegal_move"


class CubeUnavailable(BackgammonRejected):
    """A double or beaver the cube rules refuse (rules 14, 15, 18, 19; Crawford, OQ 10)."""

    reason = "cube_unavailable"


class SeatUnavailable(BackgammonRejected):
    """The table's two seats are taken, or the player already holds one."""

    reason = "seat_unavailable"


class EvaluationRefused(BackgammonRejected):
    """A running game left without GNU Backgammon's evaluation of its position, or with
    one of another position or player (rule 12, OQ 7)."""

    reason = "evaluation_refused"
