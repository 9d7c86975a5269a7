"""Why the tournament core refuses an action or a configuration: one root, `Refused`.

Every refusal is a `croupier.game.RuleBroken` carrying a machine-readable `reason` (what
broke, e.g. `rebuy_limit`) and a `message` written for a frontend developer; its kind says
how a caller reacts (`InvalidInput` is `Malformed`: a malformed value; `NotFound` is
`Unknown`: an unknown player or round; `NotAllowed`: a well-formed action the rules forbid
now). Messages quote a caller's value only through `croupier.game.limits.echo` (cut
short). A refused action leaves the state unchanged: states are immutable and every check
runs before anything new is built.
"""

from __future__ import annotations

from croupier.game import Duplicate, Malformed, RuleBroken, Unknown

__all__ = ["AlreadyThere", "InvalidInput", "NotAllowed", "NotFound", "Refused"]


class Refused(RuleBroken):
    """A refusal by the tournament rules."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message, reason)


class InvalidInput(Refused, Malformed):
    """A value out of its shape or bounds: a negative number, a table of one, bad options."""


class NotFound(Refused, Unknown):
    """A player who is not registered, or a round that is not running."""


class NotAllowed(Refused):
    """A well-formed action the rules forbid in the current state (a refused rebuy...)."""


class AlreadyThere(Refused, Duplicate):
    """A second registration of the same player (ALREADY_EXISTS, as the contract says)."""
