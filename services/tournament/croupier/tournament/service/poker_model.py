"""What the director keeps of a poker tournament (seed 002, docs/rules/poker-naiko.md rules
52-55, 59): its terms, the inputs it gave the pure core, and the hands on the table host.

- `PokerTerms`: the kind, the blind structure (a preset's name, generated for the starting
  stack by `core.blinds.preset`, or explicit levels), late registration, re-entry, bots.
  `config` makes the core's `PokerConfig` from them and the shared settings; its checks
  are the core's (one copy).
- Inputs (`Start`, `HandDone`, `Tick`, `LateEntry`): what the director told the core, in
  order, saved before anyone is asked to act on their decisions; `replay` rebuilds the
  core's state from them, as the rummy record replays its points actions.
- `HostedHand`: a hand in play at one of the tournament's tables, and the table host's
  table that deals it: its players in the host's seat order with their chips at its start,
  the level's blinds and ante, and whether its small blind is dead.

Clock readings are whole seconds since the Unix epoch (the core reads no clock).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from croupier.tournament.core.blinds import BlindStructure, Level, preset
from croupier.tournament.core.poker_config import PokerConfig
from croupier.tournament.core.poker_entries import enter
from croupier.tournament.core.poker_tournament import (
    PokerTournament,
    Step,
    hand_finished,
    start,
    tick,
)

__all__ = [
    "MAX_POKER_TABLE_SIZE",
    "POKER_VARIANTS",
    "HandDone",
    "HostedHand",
    "Kind",
    "LateEntry",
    "PokerInput",
    "PokerTerms",
    "Start",
    "Tick",
    "apply_input",
    "epoch",
    "replay",
]

Kind = Literal["sit_and_go", "spin", "scheduled"]
POKER_VARIANTS = frozenset({"nlhe", "plo", "naiko"})
MAX_POKER_TABLE_SIZE = 9
"""A poker table seats 2 to 9 (croupier.poker.core.rules.MAX_PLAYERS)."""


def epoch(moment: datetime) -> int:
    """The core's clock reading: whole seconds since the Unix epoch."""
    return int(moment.timestamp())


@dataclass(frozen=True)
class PokerTerms:
    """What a poker tournament adds to the shared settings."""

    kind: Kind
    preset: str = ""
    """A preset's name; "" when `levels` are given."""
    levels: BlindStructure | None = None
    late_registration_level: int = 0
    """Scheduled only: entries are taken until this level ends (0: none after the start)."""
    max_reentries: int = 0
    """Scheduled only: entries an eliminated player may add during late registration."""
    bots_allowed: bool = False
    """Sit & Go and Spin only (rule 59)."""

    @property
    def starts_when_full(self) -> bool:
        """A Sit & Go or a Spin starts as soon as its last seat is taken (rules 52, 53)."""
        return self.kind != "scheduled"

    def structure(self, starting_chips: int) -> BlindStructure:
        """The levels in force (`InvalidInput` `unknown_structure` for an unknown preset)."""
        if self.levels is not None:
            return self.levels
        return preset(self.preset, starting_chips)


@dataclass(frozen=True)
class Start:
    players: tuple[str, ...]
    at: int


@dataclass(frozen=True)
class HandDone:
    """A table's hand ended: the players dealt in, with their chips at its start and end."""

    table: int
    before: tuple[tuple[str, int], ...]
    after: tuple[tuple[str, int], ...]
    at: int


@dataclass(frozen=True)
class Tick:
    at: int


@dataclass(frozen=True)
class LateEntry:
    """A late entry or a re-entry (its money taken by the wallet first)."""

    player: str
    at: int


PokerInput = Start | HandDone | Tick | LateEntry


def apply_input(
    config: PokerConfig, seed: bytes, state: PokerTournament | None, given: PokerInput
) -> Step:
    """The core's step for one input (`Start` first, then the others)."""
    if isinstance(given, Start):
        return start(config, given.players, seed, given.at)
    assert state is not None, "a poker tournament's first input is its start"
    if isinstance(given, HandDone):
        return hand_finished(state, given.table, dict(given.before), dict(given.after), given.at)
    if isinstance(given, Tick):
        return tick(state, given.at)
    return enter(state, given.player, given.at)


def replay(
    config: PokerConfig, seed: bytes, inputs: tuple[PokerInput, ...]
) -> PokerTournament | None:
    """The core's state after `inputs` (None before the start)."""
    state: PokerTournament | None = None
    for given in inputs:
        state = apply_input(config, seed, state, given).state
    return state


@dataclass(frozen=True)
class HostedHand:
    """One hand in play (module docstring); `table_id` "" until the host opened it."""

    hand_id: str
    """The host table's request key: opening it again returns the same table."""
    table: int
    seats: tuple[tuple[str, int], ...]
    """Host seat 0, 1, ...: the player and his chips at the hand's start."""
    level: Level
    table_id: str = ""
    dead_small_blind: bool = False
    """The dead button rule left the hand without a small blind (the last big blind went
    out): host seat 0 has the button and seat 1 the big blind."""
