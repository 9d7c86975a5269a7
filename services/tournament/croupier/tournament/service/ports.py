"""What the director's use cases need from the world: where tournaments are kept, the
wallet, the table host that plays the rounds, the time and fresh seeds."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from croupier.kit.errors import Unavailable
from croupier.tournament.core.errors import NotAllowed
from croupier.tournament.service.events import Recorded
from croupier.tournament.service.model import Status, TournamentRecord

__all__ = [
    "Clock",
    "Conflict",
    "HandTable",
    "Repository",
    "RoundTable",
    "Seeds",
    "TableHost",
    "Unreadable",
    "Wallet",
]

Clock = Callable[[], datetime]
"""The time now, timezone-aware (tests step it by hand)."""
Seeds = Callable[[], bytes]
"""A fresh 32-byte seed for a draw (`croupier.kit.seeds.new_seed` in production)."""


class Unreadable(NotAllowed):
    """A stored tournament the director cannot read back (its record does not decode, or
    its actions do not replay): it cannot continue, so it is voided and its money refunded
    (rule 44, OQ 28). What could be read is kept: `status` (a plain column), and the game
    and currency when the settings decode (None otherwise: no automatic refund)."""

    def __init__(
        self, tournament_id: str, status: str, game_currency: tuple[str, str] | None, why: str
    ) -> None:
        super().__init__(
            "tournament_unreadable",
            f"tournament {tournament_id} cannot continue (its stored state cannot be read "
            "back): it is voided and its buy-ins and rebuys refunded",
        )
        self.why = why
        """What failed, for the operator's log (never in the caller's message)."""
        self.tournament_id = tournament_id
        self.status = status
        self.game_currency = game_currency


class Conflict(Unavailable):
    """Another director changed the tournament since it was read: retry the request (every
    money movement it made is idempotent, so the retry moves nothing twice)."""


class Repository(Protocol):
    async def create(
        self, record: TournamentRecord, event: Recorded
    ) -> tuple[TournamentRecord, bool]:
        """Store a new tournament with its first event and answer (it, True); if
        `record.request_key` is taken, store nothing and answer (the one it created, False)."""
        ...

    async def get(self, tournament_id: str) -> TournamentRecord | None: ...

    async def save(self, record: TournamentRecord, events: Sequence[Recorded]) -> None:
        """Replace the stored record of version `record.version - 1` with `record` and add
        `events`, atomically; `Conflict` if the stored version is another."""
        ...

    async def due(self, now: datetime) -> list[str]:
        """Tournaments still registering whose start time is at or before `now`."""
        ...

    async def events_after(self, tournament_id: str, sequence: int) -> list[Recorded]:
        """The tournament's events numbered above `sequence`, in order."""
        ...

    async def void_unreadable(self, unreadable: Unreadable, event: Recorded) -> None:
        """Mark a tournament whose record cannot be read voided, with `event` (numbered
        after its last), touching nothing else of it."""
        ...

    async def listed(
        self, statuses: frozenset[Status], after: tuple[datetime, str] | None, limit: int
    ) -> list[TournamentRecord]:
        """Up to `limit` tournaments in `statuses`, by start time then id, those after
        `after` (a (start time, id) already listed) only."""
        ...

    async def running(self) -> list[str]:
        """Tournaments started and not over: those whose rounds a director resumes."""
        ...


class Wallet(Protocol):
    """The wallet's tournament RPCs; every call is idempotent by its key."""

    async def enter(
        self,
        *,
        entry_id: str,
        tournament_id: str,
        game: str,
        player: str,
        currency: str,
        buy_in: int,
        fee: int,
        rebuy: bool = False,
        prize_pool: int | None = None,
        coupon_id: str = "",
    ) -> None:
        """Buy-in (or a rebuy's price) → the prize pool, fee → the house (refusals are
        `RuleBroken`). `prize_pool`: the entry completes a Spin whose pool must then hold
        its prizes; the house's prize fund adds or takes the difference, or the entry is
        refused (the fund short). `coupon_id`: the player's coupon pays a first entry
        instead (rule 48): the game's prize fund pays the buy-in, the fee is waived, and
        refunding the entry gives the coupon back."""
        ...

    async def issue_coupon(
        self,
        *,
        coupon_id: str,
        player: str,
        game: str,
        currency: str,
        value: int,
        expires_at: datetime,
    ) -> None:
        """Give `player` a coupon (rule 48: a prize); the same id again issues nothing
        more (its terms differing too: `Duplicate`)."""
        ...

    async def prize_fund(self, *, game: str, currency: str) -> int:
        """What the house's prize fund for `game` holds now (0 if never funded)."""
        ...

    async def refund_entry(self, *, entry_id: str, refund_id: str) -> None:
        """Give an entry's buy-in and fee back."""
        ...

    async def refund_crashed(self, *, tournament_id: str, game: str, currency: str) -> int:
        """Refund every buy-in and rebuy of a voided tournament; how many refunds."""
        ...

    async def pay_prizes(
        self,
        *,
        payout_id: str,
        tournament_id: str,
        game: str,
        currency: str,
        prizes: Mapping[str, int],
    ) -> None:
        """Pay every prize from the prize pool in one batch, which empties it (rule 47)."""
        ...


@dataclass(frozen=True)
class RoundTable:
    """One round to play on the table host (architecture §8: the director drives tables
    only through `TableEngine`). The host's table is opened for this round alone: its
    options carry the level's terms in effect at the round's start (rule 19), its seats
    the players in seat order with the chips they hold before the round's fee (the table
    takes the fee itself, by the same arithmetic as the core)."""

    round_id: str
    """The table's request key: opening it again returns the same table."""
    variant: str
    round_fee: int
    chip_ratio: int
    winner_risk_limit: bool
    turn_seconds: int
    stacks: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class HandTable:
    """One poker hand to play on the table host: a table opened for this hand alone (the
    host's `hand_players` option: it deals once every player is seated), its players in
    host seat order (seat 0 has the button, then the small and the big blind; heads-up
    seat 0 posts the small blind; with a dead small blind seat 1 has the big blind) with
    their chips at the hand's start, and the level's blinds and ante."""

    hand_id: str
    """The table's request key: opening it again returns the same table."""
    variant: str
    seats: tuple[tuple[str, int], ...]
    small_blind: int
    big_blind: int
    ante: int
    big_blind_ante: int
    turn_seconds: int
    bots: frozenset[str] = frozenset()
    """Players seated as BOT (rule 59)."""
    dead_small_blind: bool = False
    """No small blind: the dead button rule's, when the last big blind went out."""


class TableHost(Protocol):
    """The table host as the director drives it; every call may be repeated (after a
    restart) and changes nothing the second time."""

    async def play_round(self, round_table: RoundTable) -> str:
        """Open the round's table, seat its players (those not seated yet) and close it
        behind the round, so the host deals exactly this one round; the table id."""
        ...

    async def play_hand(self, hand: HandTable) -> str:
        """The same for one poker hand: open, seat those not seated yet, close behind it."""
        ...
