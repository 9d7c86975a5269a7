"""The interface every game engine implements to run in the table host.

The host knows nothing of any game's rules. It stores the commands a table accepted,
runs the clocks, draws the seeds and routes views; the engine is a pure function of
`(state, command) -> (state, events)`:

- no I/O, no clock and no randomness inside: a hand's randomness arrives as the 32-byte
  seed of a `StartHand` command and is expanded with `croupier.kit.fairness`;
- the same state and command always give the same result, which is what lets the host
  rebuild a table by replaying its command log;
- an illegal command raises `Rejected` and leaves the state untouched (states are
  immutable values, or the engine copies before changing).

Actions travel in the game's conformance notation (docs/conformance.md),
e.g. `{"action": "raise", "to": 6}`, so the conformance replayer, the bots and the gRPC
adapter all drive the engine the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

JSON = dict[str, Any]
S = TypeVar("S")

# (id(engine), protocol) -> (engine, whether it implements the protocol)
_IMPLEMENTS: dict[tuple[int, type], tuple[object, bool]] = {}


class Rejected(Exception):
    """A command the rules do not allow. `code` is machine-readable, `message` is for people.

    The message must never contain hidden information (another player's cards).
    `code` is one of: "invalid_argument" (malformed action), "failed_precondition"
    (well-formed but illegal now: not your turn, below the minimum raise...),
    "not_found" (no such player/seat), "permission_denied".
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


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


@dataclass(frozen=True)
class Event:
    """A public fact (never hidden cards): goes to `croupier.table.events`."""

    type: str
    data: JSON = field(default_factory=dict)


@dataclass(frozen=True)
class HandResult:
    """What a finished hand or game settles: exact integer amounts per player.

    `deltas` sum to `-commission_total` (what the house takes), so no chip is created
    or lost. `details` carries the game's own record (pots, winners, commission split...).
    """

    hand_number: int
    deltas: Mapping[str, int]
    commission: Mapping[str, int] = field(default_factory=dict)
    details: JSON = field(default_factory=dict)
    # The currency the amounts are in, when the engine knows it (else the table's).
    currency: str | None = None


@runtime_checkable
class TracksTurns(Protocol):
    """Optional: an engine whose turn spans several actions (roll, then move) says which
    turn a player's clock is timing; the host restarts the turn clock only when it changes.
    Without it, every action starts a new turn."""

    def turn_key(self, state: Any, player: str) -> str | None: ...


@runtime_checkable
class TimesTurns(Protocol):
    """Optional: an engine with decisions timed by a clock of their own (the Seal response
    window): their allowance in ms, or None for the table's turn clock. Such a window uses
    no reserve; a turn paused meanwhile (the anchorer's) resumes where it stopped."""

    def turn_ms(self, state: Any, player: str) -> int | None: ...


@runtime_checkable
class HoldsStacks(Protocol):
    """Optional: an engine whose seats hold chips the players brought (cash tables): what
    each seated player would leave with now. The host asks when a table closes, so the
    wallet gives every stack back (`croupier.table.buyins`)."""

    def stacks(self, state: Any) -> Mapping[str, int]: ...


@runtime_checkable
class EvaluatesAbandonment(Protocol):
    """Optional: an engine whose settlement of a player leaving mid-game needs an outside
    evaluation (I/O, so it runs in the host, never inside `apply`)."""

    async def evaluate_abandonment(self, state: Any, player: str) -> JSON | None:
        """The evaluation to put into the `UnseatPlayer` command, or None if none is needed."""
        ...


class GameEngine(Protocol, Generic[S]):
    """A game's rules as the host sees them.

    Optional attributes the host reads: `default_clock` (a `ClockSettings` for tables
    that state none), `auto_play_after_timeout` (True: after a clock expiry the player
    is in auto-player mode, played on each turn until they act again, `clocks.AUTO_PLAY_MS`
    after the turn starts or when the turn clock runs out if sooner) and
    `reserve_per_hand` (True: every `StartHand` refills the players' reserves).
    """

    name: str
    version: str

    def open(self, options: JSON) -> S:
        """A new table's state from validated options; raises Rejected on bad options."""
        ...

    def apply(self, state: S, command: Command) -> tuple[S, Sequence[Event]]:
        """Apply one command; raise Rejected (state unchanged) when it is not allowed."""
        ...

    def can_start_hand(self, state: S) -> bool:
        """True when no hand is running and enough players are seated to deal one."""
        ...

    def to_act(self, state: S) -> Sequence[str]:
        """Players whose clock runs now (usually one; empty between hands)."""
        ...

    def legal_actions(self, state: S, player: str) -> JSON:
        """What `player` may do now, in conformance notation."""
        ...

    def view(self, state: S, player: str) -> JSON:
        """Everything `player` may see, and nothing else."""
        ...

    def public_view(self, state: S) -> JSON:
        """What a spectator may see."""
        ...

    def timeout_action(self, state: S, player: str) -> JSON:
        """The automatic action applied when `player`'s clock runs out."""
        ...

    def result(self, state: S) -> HandResult | None:
        """The settlement of the hand that just ended, or None while it runs."""
        ...

    def randomness(self, seed: bytes) -> list[Any]:
        """What `seed` deals (the deck order, the dice): exactly what `StartHand` uses.

        `croupier verify` re-derives it from a revealed seed and compares it with the
        hand history's record.
        """
        ...

    def snapshot(self, state: S) -> JSON:
        """The whole state as JSON (hidden cards included): the host digests it, never sends it."""
        ...


def implements(engine: object, protocol: type) -> bool:
    """`isinstance(engine, protocol)` for the optional protocols above, remembered per
    engine: Python 3.11 checks every attribute of a runtime-checkable protocol on each
    call (4-7 us), and the host asks several times per command. An engine is a long-lived
    object whose methods do not come and go."""
    key = (id(engine), protocol)
    known = _IMPLEMENTS.get(key)
    if known is None or known[0] is not engine:
        known = (engine, isinstance(engine, protocol))
        _IMPLEMENTS[key] = known
    return known[1]
