"""What the backgammon engine refuses, named in the game's terms.

Every error is a `croupier.table.engine.Rejected` (so the table host and the conformance
replayer need no translation) whose `code` is the host status: `invalid_argument` for a
malformed action or option, `not_found` for an unknown player, `permission_denied` for
dice a seeded game does not allow, `failed_precondition` for a well-formed action the
rules do not allow now.
"""

from __future__ import annotations

from typing import ClassVar

from croupier.table.engine import Rejected

__all__ = [
    "BackgammonRejected",
    "CubeUnavailable",
    "DiceFromSeed",
    "IllegalMove",
    "InvalidAction",
    "NotYourTurn",
    "UnknownPlayer",
    "WrongPhase",
]


class BackgammonRejected(Rejected):
    """Root of the engine's errors."""

    status: ClassVar[str] = "failed_precondition"

    def __init__(self, message: str) -> None:
        super().__init__(self.status, message)


class InvalidAction(BackgammonRejected):
    """A malformed action or table option (missing field, unknown name, bad dice)."""

    status = "invalid_argument"


class UnknownPlayer(BackgammonRejected):
    """A player who is not at this table."""

    status = "not_found"


class DiceFromSeed(BackgammonRejected):
    """Explicit dice in a game whose dice come from its seed."""

    status = "permission_denied"


class NotYourTurn(BackgammonRejected):
    """Another player must act now."""


class WrongPhase(BackgammonRejected):
    """Not now: no game running, roll before moving, no double or resignation pending."""


class IllegalMove(BackgammonRejected):
    """A play that does not lead to one of the roll's legal positions (rules 23-33)."""


class CubeUnavailable(BackgammonRejected):
    """A double or beaver the cube rules refuse (rules 14, 15, 18, 19; Crawford, OQ 10)."""
