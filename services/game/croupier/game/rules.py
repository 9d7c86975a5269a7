"""`GameRules`: what every game implements to run in the table host.

The host knows nothing of any game's rules. It stores the commands a table accepted,
runs the clocks, draws the seeds and routes views; a game's rules are a pure function of
`(state, command) -> (state, events)`:

- no I/O, no clock and no randomness inside: a hand's randomness arrives as the 32-byte
  seed of a `StartHand` command and is expanded with `croupier.game.fairness`;
- the same state and command always give the same result, which is what lets the host
  rebuild a table by replaying its command log;
- an illegal command raises `croupier.game.errors.RuleBroken` and leaves the state
  untouched (states are immutable values, or the rules copy before changing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from croupier.game.commands import JSON, Command
from croupier.game.events import Event, HandResult

S = TypeVar("S")


@dataclass(frozen=True)
class ClockSettings:
    """A table's clocks: each turn's allowance, a reserve (time bank) drawn on once the
    turn's allowance is spent, and how long a disconnected player's seat is kept."""

    turn_ms: int
    reserve_ms: int = 0
    reconnect_ms: int = 60_000


# (id(rules), protocol) -> (rules, whether they implement the protocol)
_IMPLEMENTS: dict[tuple[int, type], tuple[object, bool]] = {}


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
    wallet gives every stack back (`croupier.table.service.money`)."""

    def stacks(self, state: Any) -> Mapping[str, int]: ...


@runtime_checkable
class EvaluatesAbandonment(Protocol):
    """Optional: an engine whose settlement of a player leaving mid-game needs an outside
    evaluation (I/O, so it runs in the host, never inside `apply`)."""

    async def evaluate_abandonment(self, state: Any, player: str) -> JSON | None:
        """The evaluation to put into the `UnseatPlayer` command, or None if none is needed."""
        ...


@dataclass(frozen=True)
class TableTraits:
    """What a game tells the host about all of its tables, once.

    - `default_clock`: the clocks of a table whose options state none;
    - `auto_play_after_timeout`: after a clock expiry the player is in auto-player mode,
      played on each turn until they act again (`croupier.table.core.clocks.AUTO_PLAY_MS`
      after the turn starts, or when the turn clock runs out if sooner);
    - `reserve_per_hand`: every `StartHand` refills the players' reserves.
    """

    default_clock: ClockSettings = ClockSettings(turn_ms=30_000)
    auto_play_after_timeout: bool = False
    reserve_per_hand: bool = False


class GameRules(Protocol, Generic[S]):
    """A game's rules as the host sees them."""

    name: str
    version: str
    traits: TableTraits

    def open(self, options: JSON) -> S:
        """A new table's state from validated options; raises Malformed on bad options."""
        ...

    def apply(self, state: S, command: Command) -> tuple[S, Sequence[Event]]:
        """Apply one command; raise RuleBroken (state unchanged) when it is not allowed."""
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
