"""Why the lobby refuses: one root, `Refused`, a `croupier.game.RuleBroken` with a
machine-readable `reason` and a message for the frontend developer. Its kind is all the
lobby says; the kit's error table (`croupier.kit.errors.STATUS_BY_ROOT`) picks the gRPC
status. A refusal leaves every state unchanged (states are immutable; every check runs
before anything new is built) and reserves nothing."""

from __future__ import annotations

from croupier.game import Duplicate, Malformed, NotYours, RuleBroken, Unknown

__all__ = ["AlreadyThere", "InvalidInput", "NotAllowed", "NotFound", "NotInvited", "Refused"]


class Refused(RuleBroken):
    """A refusal by the lobby's rules."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message, reason)


class InvalidInput(Refused, Malformed):
    """A malformed request: an unknown game, a negative stake, a stake range upside down."""


class NotFound(Refused, Unknown):
    """An unknown table or ticket."""


class NotInvited(Refused, NotYours):
    """A private table, and the player is neither invited nor holding its code."""


class AlreadyThere(Refused, Duplicate):
    """The account already has a seat at the table, or a ticket in the queue."""


class NotAllowed(Refused):
    """Well-formed, but not now: a full table, a stake above the account's limit, a
    self-excluded account, a ticket no longer waiting."""
