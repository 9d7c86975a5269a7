"""Who may do what through the gateway (docs/architecture.md §7).

The player is always the token's: requests name none, so a caller reads only his own
money and his own view (a table where he has no seat shows him its public view, as to any
spectator). What is left to decide is a seat: acting at, reconnecting to or leaving a
table is for its seated players only; and a role: the back-office calls, which name the
account they act on, are for tokens with the operator role only.
"""

from __future__ import annotations

from collections.abc import Collection

from croupier.game.errors import NotYours
from croupier.game.limits import echo

__all__ = ["NotOperator", "NotSeated", "require_operator", "require_seat"]


class NotSeated(NotYours):
    """The caller has no seat at the table he tried to act at, reconnect to or leave."""

    reason = "not_seated"


def require_seat(seated: Collection[str], player: str, table_id: str) -> None:
    """Refuse `player` a seated player's call at `table_id` unless he sits there."""
    if player not in seated:
        raise NotSeated(
            f"you have no seat at table {echo(table_id)}: only its seated players act there"
        )


class NotOperator(NotYours):
    """A back-office call by a token without the operator role."""

    reason = "operator_only"


def require_operator(operator: bool, call: str) -> None:
    """Refuse `call` unless the caller's token carries the operator role (`operator`)."""
    if not operator:
        raise NotOperator(f"{call} is an operator's call: your token has no operator role")
