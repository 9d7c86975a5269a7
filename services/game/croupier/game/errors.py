"""Why the rules refuse something: one root, `RuleBroken`, and four kinds of refusal.

Every refusal of a game, the table, the tournament director or the wallet is a
`RuleBroken` (or a subclass) carrying a machine-readable `reason` (what broke, e.g.
`"not_your_turn"`, `"raise_below_minimum"`) and a `message` written for the frontend
developer who reads it. Messages never contain hidden information (another player's
cards). A refusal leaves the state it was tried on unchanged.

Cores name no transport: the kit's one error table (`croupier.kit.errors`) maps these
roots to gRPC status codes by ancestry, so a game's own error classes need no status
and a new class gets the status of the root it derives from.
"""

from __future__ import annotations

__all__ = ["Duplicate", "Malformed", "NotYours", "RuleBroken", "Unknown"]


class RuleBroken(Exception):
    """A well-formed request the rules do not allow now (not your turn, table full)."""

    reason: str = "rule_broken"

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if reason is not None:
            self.reason = reason  # an instance may be more precise than its class


class Malformed(RuleBroken):
    """The request itself is wrong: a missing or mistyped field, a value out of bounds."""

    reason = "malformed"


class Unknown(RuleBroken):
    """It names a player, seat, table, account or hand that does not exist."""

    reason = "unknown"


class NotYours(RuleBroken):
    """The caller may not do this (another player's move, dice a seeded game forbids)."""

    reason = "not_yours"


class Duplicate(RuleBroken):
    """An id is taken by something else (an idempotency key reused with other content)."""

    reason = "duplicate"
