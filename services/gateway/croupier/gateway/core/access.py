"""Who may do what through the gateway (docs/architecture.md §7).

The player is always the token's: requests name none, so a caller reads only his own
money and his own view (a table where he has no seat shows him its public view, as to any
spectator). What is left to decide is a seat: acting at, reconnecting to or leaving a
table is for its seated players only; a hand: a finished hand's history reveals its seed,
which re-derives every card dealt, folded hands included, so it is for the players the
hand's settlement names only; and a role: the back-office calls, which name the account
they act on, are for tokens with the operator role only.
"""

from __future__ import annotations

import json
from collections.abc import Collection

from croupier.game.errors import NotYours
from croupier.game.limits import echo

__all__ = [
    "NotInHand",
    "NotOperator",
    "NotSeated",
    "require_hand_player",
    "require_operator",
    "require_seat",
]


class NotSeated(NotYours):
    """The caller has no seat at the table he tried to act at, reconnect to or leave."""

    reason = "not_seated"


def require_seat(seated: Collection[str], player: str, table_id: str) -> None:
    """Refuse `player` a seated player's call at `table_id` unless he sits there."""
    if player not in seated:
        raise NotSeated(
            f"you have no seat at table {echo(table_id)}: only its seated players act there"
        )


class NotInHand(NotYours):
    """The caller did not play the hand whose history he asked for."""

    reason = "not_in_hand"


def require_hand_player(history_json: str, player: str, table_id: str, hand_number: int) -> None:
    """Refuse `player` the hand history `history_json` unless the hand's settlement names
    him (every player dealt in, folded or not)."""
    players = json.loads(history_json).get("result", {}).get("deltas", {})
    if player not in players:
        raise NotInHand(
            f"you did not play hand {hand_number} of table {echo(table_id)}: its history "
            "(the seed, every card dealt) is for the hand's players only"
        )


class NotOperator(NotYours):
    """A back-office call by a token without the operator role."""

    reason = "operator_only"


def require_operator(operator: bool, call: str) -> None:
    """Refuse `call` unless the caller's token carries the operator role (`operator`)."""
    if not operator:
        raise NotOperator(f"{call} is an operator's call: your token has no operator role")
