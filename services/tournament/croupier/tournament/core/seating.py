"""Tables, seats and who moves where; the seed-000 draw and balancer (rules 7, 42, OQ 22).

What both seating policies share: a `Table` (its number, seats, whether a hand or round
is running, a poker table's last blinds), a `Move` (who goes where, and why), a `Plan`
(the moves and the `Draw` they came from), the checks of a caller's tables and the free-
seat arithmetic. The poker (TDA) policy is in `balancing`. These are decisions only: the
director applies them (`apply_moves`) between rounds or hands.

Randomness comes in as a 32-byte seed expanded by `croupier.game.fairness` under a label;
a plan records the seed and label, so an auditor re-derives every draw from the record.

Seed 000 (docs/rules/rummy-tournaments.md):

- Rule 7: `initial_seating` draws the order of the players from the seed and seats them
  at as few tables as hold them (sizes within one of each other), each at a drawn seat.
- Rule 42, OQ 22: `rummy_rebalance` closes tables and moves players so that, in this
  order, (1) empty seats at tables with players are fewest: as few tables as hold
  everyone, and never fewer than the tables whose round is running, which are never
  broken; (2) fewest players wait: a player moved to a running table waits for its round
  to end, a player alone at a table waits for an opponent; (3) fewest players move: the
  fullest idle tables stay open. Who moves and to which seat is drawn.
- OQ 5: `final_table_due` once everyone left fits at one table; the balancer then brings
  them together (one table is the fewest empty seats).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from croupier.game.fairness import SEED_BYTES, FairStream
from croupier.game.limits import MAX_AMOUNT, echo
from croupier.tournament.core.errors import InvalidInput

__all__ = [
    "Blinds",
    "Draw",
    "Move",
    "Plan",
    "Reason",
    "Seating",
    "Table",
    "apply_moves",
    "final_table_due",
    "initial_seating",
    "rummy_rebalance",
]


@dataclass(frozen=True)
class Blinds:
    """A poker hand's positions as seat numbers; the button and the small blind may be
    seats nobody holds any more (dead button, dead small blind: `balancing`)."""

    button: int
    small_blind: int
    big_blind: int


@dataclass(frozen=True)
class Table:
    number: int
    size: int
    """Its seats are numbered 1..size."""
    seats: tuple[tuple[int, str], ...] = ()
    """(seat, player), by seat number."""
    running: bool = False
    """A hand (poker) or round (rummy) is in play: nobody leaves this table now."""
    blinds: Blinds | None = None
    """Poker: the positions of the hand in play or last played; None before the first."""

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(player for _, player in self.seats)


Reason = Literal["table_closed", "lone_player", "table_broken", "balance"]
"""Why a player moves: a closed table or a lone player (rummy); a broken table or
balancing (poker)."""


@dataclass(frozen=True)
class Move:
    player: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    reason: Reason


@dataclass(frozen=True)
class Draw:
    """What an auditor needs to re-derive a draw: `FairStream(seed, label)`."""

    seed: bytes
    label: str


@dataclass(frozen=True)
class Plan:
    moves: tuple[Move, ...]
    draw: Draw


@dataclass(frozen=True)
class Seating:
    tables: tuple[Table, ...]
    draw: Draw


def check_seed(seed: object) -> bytes:
    if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
        raise InvalidInput("invalid_seed", f"the seed must be {SEED_BYTES} bytes")
    return seed


def _check_size(size: object) -> int:
    if isinstance(size, bool) or not isinstance(size, int) or not 2 <= size <= MAX_AMOUNT:
        raise InvalidInput("table_size", f"a table has 2 to {MAX_AMOUNT} seats, got {echo(size)}")
    return size


def check_names(players: Iterable[object]) -> None:
    seen: set[object] = set()
    for player in players:
        if not isinstance(player, str) or not player:
            raise InvalidInput(
                "invalid_player", f"a player is a non-empty name, got {echo(player)}"
            )
        if player in seen:
            raise InvalidInput("duplicate_player", f"player {echo(player)} is listed twice")
        seen.add(player)


def between(a: int, x: int, b: int) -> bool:
    """Seat `x` strictly between seats `a` and `b`, clockwise."""
    return a < x < b if a < b else x > a or x < b


def check_tables(tables: Sequence[Table]) -> int:
    """The tables' common size, after refusing what no director could have sent."""
    if not tables:
        raise InvalidInput("no_tables", "there must be at least one table")
    sizes = {_check_size(table.size) for table in tables}
    if len(sizes) > 1:
        raise InvalidInput("table_size", f"all tables must have the same size, got {sorted(sizes)}")
    size = sizes.pop()
    numbers = [table.number for table in tables]
    if len(set(numbers)) != len(numbers) or any(
        isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_AMOUNT for n in numbers
    ):
        raise InvalidInput("table_number", "table numbers must be distinct whole numbers from 1")
    check_names(player for table in tables for player in table.players)
    for table in tables:
        seats = [seat for seat, _ in table.seats]
        blinds = table.blinds
        marks = () if blinds is None else (blinds.button, blinds.small_blind, blinds.big_blind)
        if seats != sorted(set(seats)) or any(
            isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= size
            for s in (*seats, *marks)
        ):
            raise InvalidInput(
                "seat_number",
                f"table {table.number}: seats must be distinct, in order and from 1 to {size}",
            )
        if blinds is not None and (
            blinds.small_blind == blinds.big_blind
            or between(blinds.small_blind, blinds.button, blinds.big_blind)
        ):
            raise InvalidInput(
                "blinds",
                f"table {table.number}: the button, small and big blinds must follow each "
                "other clockwise (heads-up the button is the small blind)",
            )
    return size


def free_seat(table: Table, stream: FairStream | None, start: int = 1, length: int = 0) -> int:
    """A free seat among the `length` seats clockwise from `start` (0: the whole table):
    drawn from `stream`, or the first one when `stream` is None; 0 when none is free.
    Walks the players, not the seats: a table may have up to MAX_AMOUNT seats."""
    length = length or table.size
    taken = sorted(o for seat, _ in table.seats if (o := (seat - start) % table.size) < length)
    free = length - len(taken)
    if free <= 0:
        return 0
    offset = 0 if stream is None else stream.below(free)
    for o in taken:  # the offset-th free offset: skip the taken ones at or before it
        if o <= offset:
            offset += 1
    return (start - 1 + offset) % table.size + 1


def seat_player(table: Table, seat: int, player: str | None) -> Table:
    """`table` with `player` at `seat` (None: the seat freed)."""
    others = [(s, p) for s, p in table.seats if s != seat]
    seats = tuple(sorted([*others, *([(seat, player)] if player else [])]))
    # Not `dataclasses.replace`, three times slower: the balancer seats thousands.
    return Table(table.number, table.size, seats, table.running, table.blinds)


def apply_moves(tables: Sequence[Table], moves: Iterable[Move]) -> tuple[Table, ...]:
    """The tables after `moves`, in order (what the director does with a plan)."""
    by_number = {table.number: table for table in tables}
    for move in moves:
        by_number[move.from_table] = seat_player(by_number[move.from_table], move.from_seat, None)
        by_number[move.to_table] = seat_player(by_number[move.to_table], move.to_seat, move.player)
    return tuple(by_number[table.number] for table in tables)


def initial_seating(players: Sequence[str], table_size: int, seed: bytes) -> Seating:
    """Rule 7: the players in a drawn order, dealt round the fewest tables that hold them
    (table sizes within one), each to a drawn free seat of his table."""
    check_names(players)
    size = _check_size(table_size)
    draw = Draw(check_seed(seed), "seating")
    if not players:
        raise InvalidInput("no_players", "there must be at least one player to seat")
    stream = FairStream(seed, draw.label)
    count = -(-len(players) // size)
    tables = [Table(number, size) for number in range(1, count + 1)]
    for index, player in enumerate(stream.shuffled(players)):
        table = tables[index % count]
        tables[index % count] = seat_player(table, free_seat(table, stream), player)
    return Seating(tuple(tables), draw)


def final_table_due(tables: Sequence[Table]) -> bool:
    """OQ 5: everyone left fits at one table, and they sit at more than one."""
    size = check_tables(tables)
    at = [table for table in tables if table.seats]
    return len(at) > 1 and sum(len(table.seats) for table in at) <= size


def rummy_rebalance(tables: Sequence[Table], seed: bytes, label: str = "rummy-rebalance") -> Plan:
    """Rule 42, OQ 22: the moves that close tables between rounds (module docstring);
    `label` keeps apart the draws one seed makes (each balancing of a tournament)."""
    size = check_tables(tables)
    draw = Draw(check_seed(seed), label)
    stream = FairStream(seed, draw.label)
    occupied = [table for table in tables if table.seats]
    running = [table for table in occupied if table.running]
    idle = sorted(
        (table for table in occupied if not table.running),
        key=lambda t: (-len(t.seats), t.number),
    )
    keep = max(-(-sum(len(t.seats) for t in occupied) // size), len(running)) - len(running)
    at = {table.number: table for table in [*running, *idle[:keep]]}
    moves: list[Move] = []

    def move(player: str, source: Table, seat: int, target: Table, reason: Reason) -> None:
        to_seat = free_seat(target, stream)
        moves.append(Move(player, source.number, seat, target.number, to_seat, reason))
        at[target.number] = seat_player(target, to_seat, player)

    closed = [(table, seat, player) for table in idle[keep:] for seat, player in table.seats]
    for source, seat, player in stream.shuffled(closed):
        # An idle table first, the emptiest (a lone player gets an opponent): nobody waits;
        # else the running table with most room, where he waits for the round to end.
        kept = [t for t in at.values() if not t.running and len(t.seats) < size]
        if kept:
            target = min(kept, key=lambda t: (len(t.seats), t.number))
        else:
            target = max(at.values(), key=lambda t: (size - len(t.seats), -t.number))
        move(player, source, seat, target, "table_closed")
    while True:  # a lone player waits: give him one from a table of 3 or more (one move)
        kept = [t for t in at.values() if not t.running]
        lone = [t for t in kept if len(t.seats) == 1]
        full = [t for t in kept if len(t.seats) >= 3]
        if not lone or not full:
            return Plan(tuple(moves), draw)
        source = max(full, key=lambda t: (len(t.seats), -t.number))
        seat, player = source.seats[stream.below(len(source.seats))]
        at[source.number] = seat_player(source, seat, None)
        move(player, source, seat, min(lone, key=lambda t: t.number), "lone_player")
