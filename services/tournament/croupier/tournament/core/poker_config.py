"""What a poker tournament is (issue 25, rules 52-55): its kind, tables, chips, clock,
prizes and entry rules, checked once when it is announced.

Kinds: a Sit & Go (rule 52) starts as soon as its `max_players` seats are taken; a Spin
(rule 53) is a Sit & Go of exactly three whose prizes come from a multiplier drawn at the
start (`spin`); a scheduled tournament (rule 54) opens registration at
`registration_opens_at`, starts at `starts_at` with at least `min_players`, and may take
late entries and re-entries until `late_registration_level` ends.

Times are whole seconds on the director's clock (passed in: the core reads no clock).
Chips are per tournament, never money (rule 55); `buy_in` is the prize pool's part of one
entry in minor units (the fee, if any, is the wallet's business, not the prizes').
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from croupier.game.limits import MAX_AMOUNT, OutOfBounds, check_amount, check_int
from croupier.tournament.core.blinds import BlindStructure
from croupier.tournament.core.errors import InvalidInput
from croupier.tournament.core.payouts import PayoutBracket, check_covers, check_payouts
from croupier.tournament.core.spin import PUBLISHED_TABLE, SPIN_PLAYERS, SpinTable

__all__ = ["KINDS", "Kind", "PokerConfig"]

Kind = Literal["sit_and_go", "spin", "scheduled"]
KINDS: tuple[Kind, ...] = ("sit_and_go", "spin", "scheduled")


@dataclass(frozen=True)
class PokerConfig:
    """A poker tournament's published terms; refused (`InvalidInput` `invalid_tournament`,
    or the structure's and payout table's own reasons) when they cannot be played."""

    kind: Kind
    table_size: int
    """Seats per table, 2 to 10."""
    starting_stack: int
    """Tournament chips each entry gets."""
    structure: BlindStructure
    buy_in: int
    """Minor units each entry adds to the prize pool (the Spin's pool is a multiple of it)."""
    max_players: int
    """A Sit & Go starts when this many have registered; a scheduled one takes at most
    this many players, each entering up to `max_entries` times."""
    min_players: int = 2
    """A scheduled tournament with fewer at `starts_at` does not start."""
    payouts: tuple[PayoutBracket, ...] = ()
    """Shares of the pool by number of entries (not read for a Spin: `spin_table`)."""
    spin_table: SpinTable = PUBLISHED_TABLE
    registration_opens_at: int = 0
    starts_at: int = 0
    """Scheduled only: when registration opens and play starts."""
    late_registration_level: int = 0
    """Scheduled only: entries and re-entries are taken until level number
    `late_registration_level` (1-based) ends; 0: none after the start."""
    max_entries: int = 1
    """Entries per player: 1 is a freezeout, more allow re-entry (scheduled only)."""
    bots_allowed: bool = False
    """Bots (rule 59, labelled BOT) may register: Sit & Go and Spin only."""
    tags: tuple[str, ...] = field(default=())
    """Free labels for lobbies (game, speed); the core does not read them."""

    def __post_init__(self) -> None:
        try:
            self._check()
        except OutOfBounds as exc:
            raise InvalidInput("invalid_tournament", exc.message) from None

    @property
    def scheduled(self) -> bool:
        return self.kind == "scheduled"

    def _check(self) -> None:
        if self.kind not in KINDS:
            raise OutOfBounds(f"kind must be one of {', '.join(KINDS)}")
        if not isinstance(self.structure, BlindStructure):
            raise OutOfBounds("structure must be a BlindStructure (blinds.preset or generate)")
        check_int(self.table_size, "table_size", 2, 10)
        check_amount(self.starting_stack, "starting_stack", low=1)
        check_amount(self.buy_in, "buy_in")
        check_int(self.max_players, "max_players", 2, MAX_AMOUNT)
        check_int(self.min_players, "min_players", 2, self.max_players)
        check_amount(self.registration_opens_at, "registration_opens_at")
        check_int(self.starts_at, "starts_at", self.registration_opens_at, MAX_AMOUNT)
        levels = len(self.structure.levels)
        check_int(self.late_registration_level, "late_registration_level", 0, levels)
        check_int(self.max_entries, "max_entries", 1, MAX_AMOUNT)
        if not isinstance(self.bots_allowed, bool):
            raise OutOfBounds("bots_allowed must be true or false")
        if self.kind == "spin" and self.max_players != SPIN_PLAYERS:
            raise OutOfBounds(f"a Spin has exactly {SPIN_PLAYERS} players")
        if not self.scheduled:
            if self.max_players > self.table_size:
                raise OutOfBounds("a Sit & Go or Spin plays at one table: max_players ≤ table_size")
            if self.late_registration_level or self.max_entries != 1:
                raise OutOfBounds("late registration and re-entry are for scheduled tournaments")
        elif self.bots_allowed:
            raise OutOfBounds("bots may register in a Sit & Go or a Spin only")
        if self.kind != "spin":
            check_payouts(self.payouts)
            fewest = self.max_players if self.kind == "sit_and_go" else self.min_players
            check_covers(self.payouts, fewest, self.max_players * self.max_entries)
