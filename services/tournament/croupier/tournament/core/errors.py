"""Why the tournament core refuses an action or a configuration: one root, `RuleBroken`.

Every refusal carries a machine-readable `reason` (what broke, e.g. `rebuy_limit`), a
`status` for the future director's gRPC answer (`invalid_argument` for a malformed value,
`not_found` for an unknown player or round, `failed_precondition` for a well-formed action
the rules forbid now) and a `message` written for a frontend developer. Messages quote a
caller's value only through `croupier.kit.limits.echo` (cut short). A refused action
leaves the state unchanged: states are immutable and every check runs before anything new
is built.
"""

from __future__ import annotations

from typing import ClassVar, Literal

__all__ = ["InvalidInput", "NotAllowed", "NotFound", "RuleBroken"]

Status = Literal["invalid_argument", "not_found", "failed_precondition"]


class RuleBroken(Exception):
    """A refusal by the tournament rules; subclasses fix the `status`."""

    status: ClassVar[Status] = "failed_precondition"

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class InvalidInput(RuleBroken):
    """A value out of its shape or bounds: a negative number, a table of one, bad options."""

    status = "invalid_argument"


class NotFound(RuleBroken):
    """A player who is not registered, or a round that is not running."""

    status = "not_found"


class NotAllowed(RuleBroken):
    """A well-formed action the rules forbid in the current state (a refused rebuy...)."""

    status = "failed_precondition"
