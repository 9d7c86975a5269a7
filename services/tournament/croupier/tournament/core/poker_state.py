"""A poker tournament's state (`poker_tournament`) and the questions asked of it: players
left, prizes, the live ranking, the seeds of later draws."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

from croupier.game.fairness import FairStream
from croupier.game.limits import MAX_AMOUNT, OutOfBounds, check_amount
from croupier.tournament.core.blinds import Level, LevelClock
from croupier.tournament.core.errors import InvalidInput
from croupier.tournament.core.payouts import prizes_for
from croupier.tournament.core.poker_chips import ChipCounts
from croupier.tournament.core.poker_config import PokerConfig
from croupier.tournament.core.poker_decisions import Decision
from croupier.tournament.core.ranking import Place, groups, numbered
from croupier.tournament.core.seating import Table
from croupier.tournament.core.spin import Multiplier
from croupier.tournament.core.spin import prizes as spin_prizes

__all__ = [
    "PokerTournament",
    "Step",
    "check_clock",
    "count_paid",
    "count_sizes",
    "draw_seed",
    "evolve",
    "paid_prizes",
    "players_left",
    "standings",
]


T = TypeVar("T")


def evolve(value: T, **changes: object) -> T:
    """`dataclasses.replace` for the director's hot path: a copy of a frozen dataclass
    instance (not slotted, without `__post_init__`) with `changes`, without running
    `__init__` again: 2 µs instead of 14 for the state's twenty fields, and the director
    makes several a hand (benchmarks/poker_tournament)."""
    if not changes.keys() <= value.__dict__.keys():
        raise TypeError(f"{type(value).__name__} has no field {sorted(changes)}")
    new = object.__new__(type(value))
    new.__dict__.update(value.__dict__, **changes)
    return new


@dataclass(frozen=True)
class PokerTournament:
    """A running (or finished) poker tournament; replaced, never changed."""

    config: PokerConfig
    seed: bytes
    started_at: int
    tables: tuple[Table, ...]
    """Table number n is `tables[n - 1]`; a closed table stays, without seats."""
    seated: tuple[int, ...]
    """The numbers of the tables with players, in order (what the director looks at
    after each hand: late in a big tournament most tables are closed)."""
    table_sizes: tuple[int, ...]
    """How many seated tables have n players, for n = 0..table_size (`count_sizes`):
    whether tables are balanced is read here, not by counting hundreds of tables."""
    chips: ChipCounts
    """Every player who entered, in entry order: his chips now (0: out)."""
    entries: Mapping[str, int]
    """How many times each player entered (re-entries: more than 1)."""
    order: Mapping[str, int]
    """Each player's rank in entry order (ties list players in it)."""
    out: tuple[tuple[str, ...], ...]
    """Players out, the first out first; players in one group share a place (a
    re-entered player is in again: not listed). Places are numbered from these at any
    time (`standings`), so late entries never leave a gap or a clash."""
    in_hand: Mapping[int, tuple[str, ...]]
    """Each running table's players dealt into its hand (`Deal.players`)."""
    clock: LevelClock
    spin: Multiplier | None
    """A Spin's drawn row; None for other kinds."""
    alive: int = 0
    """Players with chips (kept with `chips`: a tournament of thousands asks every hand)."""
    paid: int = 0
    """Places paid for the entries so far (`count_paid`), kept as entries come."""
    hand_for_hand: bool = False
    pending_busts: tuple[tuple[str, int], ...] = ()
    """Hand-for-hand: the players out this round with their chips at its start, ranked
    together when the round's last table finishes."""
    draws: int = 0
    """Draws made after the start (moves, late seats): each under its own label."""
    finished: bool = False

    def seated_tables(self) -> list[Table]:
        return [self.tables[number - 1] for number in self.seated]

    @property
    def level(self) -> Level:
        return self.config.structure.levels[self.clock.level_index]


class Step(NamedTuple):
    state: PokerTournament
    decisions: tuple[Decision, ...]


def check_clock(now: object, what: str = "now") -> int:
    try:
        return check_amount(now, what)
    except OutOfBounds as exc:
        raise InvalidInput("invalid_clock", exc.message) from None


def players_left(state: PokerTournament) -> int:
    """Players with chips (and, in a hand-for-hand round, its busts not yet placed)."""
    return state.alive + len(state.pending_busts)


def paid_prizes(state: PokerTournament) -> tuple[int, ...]:
    """The prizes by place, 1st first, for the entries so far: a Spin's from its drawn
    row, else the payout table's bracket for the number of entries (pool: buy_in each)."""
    config = state.config
    if state.spin is not None:
        return spin_prizes(state.spin, config.buy_in)
    entries = sum(state.entries.values())
    return prizes_for(config.payouts, entries, min(config.buy_in * entries, MAX_AMOUNT))


def standings(state: PokerTournament) -> tuple[Place, ...]:
    """The live ranking: players in by chips (equal chips share a place), then those out
    in the hand-for-hand round in play (by chips at its start, until its end places
    them), then players out by place; final once `finished`."""
    alive = groups([(p, c) for p, c in state.chips.items() if c > 0])
    return numbered([*alive, *groups(state.pending_busts), *reversed(state.out)])


def count_sizes(tables: Sequence[Table], table_size: int) -> tuple[int, ...]:
    """How many of `tables` have n players, for n = 0..table_size (closed ones left out)."""
    sizes = [0] * (table_size + 1)
    for table in tables:
        if table.seats:
            sizes[len(table.seats)] += 1
    return tuple(sizes)


def count_paid(state: PokerTournament) -> int:
    """How many places win a prize for the entries so far."""
    return sum(1 for prize in paid_prizes(state) if prize > 0)


def draw_seed(state: PokerTournament, label: str) -> bytes:
    """A 32-byte seed for one later draw, derived from the tournament's seed."""
    stream = FairStream(state.seed, label)
    return stream.next_bytes(32)
