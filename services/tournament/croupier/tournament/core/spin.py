"""Spin (rule 53, OQ 21): a 3-player tournament whose prize multiplier is drawn at the start.

The multiplier comes from a published table: rows of (multiplier, weight, shares), weights
in parts per million summing to exactly `WEIGHT_TOTAL`, so a row's weight reads as its
probability. The draw is provably fair (`croupier.game.fairness`):

1. the director takes a fresh seed (`croupier.kit.seeds.new_seed`) and publishes
   `commitment(seed)` before the draw;
2. `draw_multiplier(table, seed)` takes one ticket, a uniform integer below `WEIGHT_TOTAL`
   from `FairStream(seed, "spin-multiplier")` (rejection sampling: no modulo bias), and
   `row_for_ticket` gives the row whose range holds it: rows in published order, the first
   row owning tickets 0 to its weight - 1, the next the following ones, and so on;
3. the multiplier and the prizes are shown to the players before the first hand;
4. the seed is revealed afterwards: `verify_draw` re-derives the draw from it.

Prizes: the pool is the buy-in × the multiplier (as Spin formats publish it: a 2x Spin of
three players pays twice one buy-in): with the published table the pool averages 98.5%
of the three buy-ins. The house's prize fund adds what a pool lacks and takes its surplus
(the wallet's `EnterTournament.prize_pool`); `fund_needed` is what the fund must hold for
any row of a table to be paid. Place i wins pool × share_i // sum(shares), and the chips those
floors leave go to first place. Places past the shares win nothing. Chips and prizes are
virtual, never money (rule 55).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate, pairwise

from croupier.game.fairness import SEED_BYTES, FairStream, commitment
from croupier.game.limits import OutOfBounds, check_amount, check_int, echo
from croupier.tournament.core.errors import InvalidInput

__all__ = [
    "PUBLISHED_TABLE",
    "SPIN_PLAYERS",
    "WEIGHT_TOTAL",
    "Multiplier",
    "SpinTable",
    "commitment",
    "draw_multiplier",
    "fund_needed",
    "prizes",
    "row_for_ticket",
    "verify_draw",
]

SPIN_PLAYERS = 3
WEIGHT_TOTAL = 1_000_000  # weights are parts per million
LABEL = "spin-multiplier"  # the fairness stream's label: separates this use of a seed


@dataclass(frozen=True)
class Multiplier:
    """One row: the pool is `multiplier` × the buy-in; `shares` split it by place."""

    multiplier: int
    weight: int
    shares: tuple[int, ...]


@dataclass(frozen=True)
class SpinTable:
    """Rows in rising multiplier order, weights summing to `WEIGHT_TOTAL`; each row's
    shares name 1 to 3 places, never rising from one place to the next, first place > 0."""

    rows: tuple[Multiplier, ...]

    def __post_init__(self) -> None:
        try:
            self._check()
        except OutOfBounds as exc:
            raise InvalidInput("invalid_spin_table", exc.message) from None

    def _check(self) -> None:
        if not isinstance(self.rows, tuple) or not self.rows:
            raise OutOfBounds("a Spin table lists at least one multiplier")
        previous = 0
        for row in self.rows:
            if not isinstance(row, Multiplier):
                raise OutOfBounds(f"a Spin table row must be a Multiplier, got {echo(row)}")
            what = f"multiplier {echo(row.multiplier)}"
            check_amount(row.multiplier, "a multiplier", low=previous + 1)
            check_int(row.weight, f"{what} weight", 1, WEIGHT_TOTAL)
            shares = row.shares
            if not isinstance(shares, tuple) or not 1 <= len(shares) <= SPIN_PLAYERS:
                raise OutOfBounds(f"{what} shares name 1 to {SPIN_PLAYERS} places")
            for place, share in enumerate(shares, start=1):
                check_amount(share, f"{what} share of place {place}", low=1 if place == 1 else 0)
            if any(later > earlier for earlier, later in pairwise(shares)):
                raise OutOfBounds(f"{what} shares must not rise from one place to the next")
            previous = row.multiplier
        total = sum(row.weight for row in self.rows)
        if total != WEIGHT_TOTAL:
            raise OutOfBounds(
                f"the weights must sum to {WEIGHT_TOTAL} (parts per million), got {total}"
            )


# The published distribution (OQ 21): the pool averages 2.955 buy-ins of the 3 paid.
PUBLISHED_TABLE = SpinTable(
    (
        Multiplier(2, 650_000, (1,)),
        Multiplier(3, 230_000, (1,)),
        Multiplier(5, 95_000, (1,)),
        Multiplier(10, 20_000, (1,)),
        Multiplier(25, 4_000, (1,)),
        Multiplier(100, 900, (8, 1, 1)),
        Multiplier(1000, 100, (8, 1, 1)),
    )
)


def row_for_ticket(table: SpinTable, ticket: int) -> Multiplier:
    """The row whose range of tickets (in published order) holds `ticket`."""
    try:
        check_int(ticket, "a Spin ticket", 0, WEIGHT_TOTAL - 1)
    except OutOfBounds as exc:
        raise InvalidInput("invalid_ticket", exc.message) from None
    ends = accumulate(row.weight for row in table.rows)
    return table.rows[bisect_right(list(ends), ticket)]


def draw_multiplier(table: SpinTable, seed: bytes) -> Multiplier:
    """The row a seed draws: one ticket below `WEIGHT_TOTAL` from the seed's stream."""
    if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
        # The seed is secret until revealed: say only what is wrong with its shape.
        raise InvalidInput("invalid_seed", f"a Spin seed is {SEED_BYTES} bytes")
    return row_for_ticket(table, FairStream(seed, LABEL).below(WEIGHT_TOTAL))


def verify_draw(table: SpinTable, revealed_seed: bytes, committed: str, multiplier: int) -> bool:
    """Whether the revealed seed is the committed one and draws `multiplier` from `table`."""
    if not isinstance(revealed_seed, bytes) or len(revealed_seed) != SEED_BYTES:
        return False
    if commitment(revealed_seed) != committed:
        return False
    return draw_multiplier(table, revealed_seed).multiplier == multiplier


def prizes(row: Multiplier, buy_in: int) -> tuple[int, ...]:
    """The prizes by place (1st first) of a Spin with `buy_in` each and `row` drawn."""
    try:
        check_amount(buy_in, "buy_in")
        pool = check_amount(buy_in * row.multiplier, "the prize pool (buy_in × multiplier)")
    except OutOfBounds as exc:
        raise InvalidInput("invalid_buy_in", exc.message) from None
    total = sum(row.shares)
    split = [pool * share // total for share in row.shares]
    split[0] += pool - sum(split)
    return tuple(split)


def fund_needed(table: SpinTable, buy_in: int) -> int:
    """What the house's prize fund must hold so that any row of `table` can be paid: the
    largest pool less the players' buy-ins (0 when no pool exceeds them). Asked before a
    Spin is filled, whatever its seed draws, so that a refusal tells nothing of the draw."""
    largest = sum(prizes(max(table.rows, key=lambda row: row.multiplier), buy_in))
    return max(0, largest - SPIN_PLAYERS * buy_in)
