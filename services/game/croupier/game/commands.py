"""What the table host asks of a game: seat a player, unseat one, start a hand, act.

A command is a plain value the host stores in a table's log; replaying the log's commands
through the same rules rebuilds the table. Actions travel in the game's conformance
notation (docs/conformance.md), e.g. `{"action": "raise", "to": 6}`, so the conformance
replayer, the bots and the gRPC adapter all drive a game the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

JSON = dict[str, Any]


@dataclass(frozen=True)
class SeatPlayer:
    player: str
    seat: int
    stack: int = 0
    is_bot: bool = False
    # The code a private table's host handed out; the game decides whether it admits.
    invite_code: str = ""


@dataclass(frozen=True)
class UnseatPlayer:
    """A player leaves (or was away past the reconnection window).

    `evaluation` is what an `EvaluatesAbandonment` engine's evaluator said about the
    position when the player left (e.g. GNU Backgammon's equity). The host obtains it
    before logging the command and stores it in the log, so a replay never asks again.
    """

    player: str
    evaluation: JSON | None = None


@dataclass(frozen=True)
class StartHand:
    """Begin the next hand (or game) with this seed; the engine derives every random choice."""

    seed: bytes


@dataclass(frozen=True)
class Act:
    """A player's action; `by_clock` when the host applies `timeout_action` on expiry.

    Engines whose timeout actions carry markers a player must not send themselves (a
    rummy auto-discard, a backgammon loss on time) accept them only `by_clock`.
    `at_ms` is the command's log timestamp (ms since the epoch), for rules that count
    time (a rummy round whose players are all automatic ends after 5 minutes); a replay
    passes the logged one, so the engine stays a pure function of its log.
    """

    player: str
    action: JSON
    by_clock: bool = False
    at_ms: int = 0


Command = SeatPlayer | UnseatPlayer | StartHand | Act
"""What the host asks of an engine. A clock expiry arrives as the `Act` that
`timeout_action` chose, so an engine needs no separate timeout rule."""
