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

The contract is small because each question is asked once. `turns` says in one answer
whom the table waits for and how each one's clock times the turn (`Turn`: the turn's key
and an allowance of its own), where three methods said it before (the players to act,
two optional protocols for keys and allowances). `view` takes the viewer, None for a
spectator, where a player's view and the public one were two methods. Two parts stay
optional, because not every game has them: `HoldsStacks` (money at the seats: poker's
cash tables, backgammon's covers at real-money tables) and `EvaluatesAbandonment` (an
outside evaluation before a player leaves: backgammon).

A game writes its rules as one object, a `TableRules` (`croupier.<game>.core.table_rules`):
its `apply` sends each command to the method named after it (`seat`, `unseat`,
`start_hand`, `act`), so no game repeats that dispatch. The game's `engine.py` binds
that object to its adapters and its protobuf codec, and the host registry loads it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from croupier.game.commands import JSON, Act, Command, SeatPlayer, StartHand, UnseatPlayer
from croupier.game.errors import Malformed
from croupier.game.events import Event, HandResult

S = TypeVar("S")


@dataclass(frozen=True)
class ClockSettings:
    """A table's clocks: each turn's allowance, a reserve (time bank) drawn on once the
    turn's allowance is spent, and how long a disconnected player's seat is kept."""

    turn_ms: int
    reserve_ms: int = 0
    reconnect_ms: int = 60_000


@dataclass(frozen=True)
class Turn:
    """A player the table waits for now, and how the host's clock times their turn.

    - `key`: which turn it is, for a game whose turn spans several actions (roll, then
      move): the host restarts the player's clock only when the key changes, and a turn
      paused (the player no longer waited for) resumes where it stopped when it comes
      back with the same key. None: every action starts a new turn.
    - `allowance_ms`: a decision timed by a clock of its own (the Seal response window),
      with no reserve; None: the table's turn clock and reserve.
    """

    player: str
    key: str | None = None
    allowance_ms: int | None = None


# (id(rules), protocol) -> (rules, whether they implement the protocol)
_IMPLEMENTS: dict[tuple[int, type], tuple[object, bool]] = {}


@runtime_checkable
class HoldsStacks(Protocol):
    """Optional: an engine whose seats hold chips the players brought (cash tables): what
    each seated player would leave with now. The host asks when a table closes, so the
    wallet gives every stack back (`croupier.table.service.money`). Such an engine's
    events may also say what the rules make a player bring (`buy_in`), which the host
    buys in before it logs the command."""

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

    def turns(self, state: S) -> Sequence[Turn]:
        """The turns whose clocks run now (usually one; none between hands)."""
        ...

    def legal_actions(self, state: S, player: str) -> JSON:
        """What `player` may do now, in conformance notation."""
        ...

    def view(self, state: S, viewer: str | None) -> JSON:
        """Everything the seated player `viewer` may see, and nothing else; None: what a
        spectator may see."""
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


class TableRules(ABC, Generic[S]):
    """A game's rules object: each command in a method of its own, which `apply` calls.

    A subclass writes the four commands and the rest of `GameRules` (the queries)."""

    def apply(self, state: S, command: Command) -> tuple[S, Sequence[Event]]:
        # Acts first: they are almost every command a table applies.
        if isinstance(command, Act):
            return self.act(state, command)
        if isinstance(command, SeatPlayer):
            return self.seat(state, command)
        if isinstance(command, UnseatPlayer):
            return self.unseat(state, command)
        if isinstance(command, StartHand):
            return self.start_hand(state, command)
        raise Malformed(f"unsupported command {command!r}")

    @abstractmethod
    def seat(self, state: S, command: SeatPlayer) -> tuple[S, Sequence[Event]]: ...

    @abstractmethod
    def unseat(self, state: S, command: UnseatPlayer) -> tuple[S, Sequence[Event]]: ...

    @abstractmethod
    def start_hand(self, state: S, command: StartHand) -> tuple[S, Sequence[Event]]: ...

    @abstractmethod
    def act(self, state: S, command: Act) -> tuple[S, Sequence[Event]]: ...


def implements(engine: object, protocol: type) -> bool:
    """`isinstance(engine, protocol)` for the optional protocols above, remembered per
    engine: Python 3.11 checks every attribute of a runtime-checkable protocol on each
    call (4-7 us), and the host asks on every view it sends. An engine is a long-lived
    object whose methods do not come and go."""
    key = (id(engine), protocol)
    known = _IMPLEMENTS.get(key)
    if known is None or known[0] is not engine:
        known = (engine, isinstance(engine, protocol))
        _IMPLEMENTS[key] = known
    return known[1]
