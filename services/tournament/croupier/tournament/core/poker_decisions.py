"""What the poker tournament director decides (`poker_tournament`'s `Step.decisions`),
in the order to carry them out: apply `Moves` between hands, then start each `Deal`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from croupier.tournament.core.blinds import Level
from croupier.tournament.core.ranking import Place
from croupier.tournament.core.seating import Blinds, Plan, Table
from croupier.tournament.core.spin import Multiplier

__all__ = [
    "BreakStarted",
    "Busted",
    "Deal",
    "Decision",
    "Entered",
    "Finished",
    "HandForHand",
    "LevelStarted",
    "Moves",
    "Seated",
    "SpinDrawn",
    "TableClosed",
]


@dataclass(frozen=True)
class Seated:
    """The start's seating (rule 7's draw): seat these players at these tables."""

    tables: tuple[Table, ...]


@dataclass(frozen=True)
class SpinDrawn:
    """A Spin's multiplier row and prizes by place: show them before the first hand."""

    multiplier: Multiplier
    prizes: tuple[int, ...]


@dataclass(frozen=True)
class Entered:
    """A late entry or re-entry (`entry`: his how-manieth) seated at `table`, `seat` with
    the starting stack; he is dealt in from the table's next hand (`Deal`)."""

    player: str
    table: int
    seat: int
    entry: int


@dataclass(frozen=True)
class Moves:
    """Players to move between hands (TDA breaking and balancing), with the draw's record."""

    plan: Plan


@dataclass(frozen=True)
class TableClosed:
    """A table has nobody left at it (broken, or everyone out)."""

    table: int


@dataclass(frozen=True)
class Deal:
    """Start a hand at `table`: `players` (seat order) are dealt in, at these positions
    (the button or small blind may be a dead seat), with `level`'s blinds and ante."""

    table: int
    blinds: Blinds
    players: tuple[str, ...]
    level: Level
    seats: tuple[int, ...] = ()
    """The seat of each of `players`, in the same order (what `blinds` refer to)."""


@dataclass(frozen=True)
class Busted:
    """Players out, with their places (shared places: equal chips at the hand's start)."""

    places: tuple[Place, ...]


@dataclass(frozen=True)
class HandForHand:
    """Hand-for-hand starts (`on`) or stops."""

    on: bool


@dataclass(frozen=True)
class LevelStarted:
    """Level `level_index` (0-based) is in force from the next hand dealt."""

    level_index: int
    level: Level


@dataclass(frozen=True)
class BreakStarted:
    """A break: no hand is dealt for `seconds` (hands in play finish)."""

    seconds: int


@dataclass(frozen=True)
class Finished:
    """The final ranking and every player's prize in minor units (0 for most)."""

    places: tuple[Place, ...]
    prizes: Mapping[str, int]


Decision = (
    Seated
    | SpinDrawn
    | Entered
    | Moves
    | TableClosed
    | Deal
    | Busted
    | HandForHand
    | LevelStarted
    | BreakStarted
    | Finished
)
