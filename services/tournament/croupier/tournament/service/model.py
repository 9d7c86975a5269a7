"""What the director keeps of a tournament: its settings, its entries, its seats, and the
events it announced.

A `TournamentRecord` is replaced, never changed; each use case builds the next one and
saves it with the events it produced, under the previous `version` (optimistic locking:
two replicas cannot both change one tournament). Once started, the points state
(`croupier.tournament.core.state.Tournament`) derives from the record: the entrants in
registration order with the starting stack (rule 8), then every action the director
gave the core since (`actions`: rounds started and ended, levels, rebuys), replayed by
the one points core that `croupier conformance` runs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum
from functools import cached_property

from croupier.game.limits import MAX_CLOCK_SECONDS, OutOfBounds, check_amount, check_int, echo
from croupier.tournament.core.actions import Action, Rebuy
from croupier.tournament.core.coupon_prizes import CouponPrize, check_coupon_prizes
from croupier.tournament.core.errors import InvalidInput
from croupier.tournament.core.options import Level, Options, RebuyPolicy
from croupier.tournament.core.payouts import PayoutBracket, check_covers, check_payouts
from croupier.tournament.core.poker_config import PokerConfig
from croupier.tournament.core.standings import apply
from croupier.tournament.core.state import Tournament, new_tournament
from croupier.tournament.service.poker_model import (
    MAX_POKER_TABLE_SIZE,
    POKER_VARIANTS,
    HostedHand,
    PokerInput,
    PokerTerms,
    epoch,
)

__all__ = [
    "GAMES",
    "RUMMY_VARIANTS",
    "Entry",
    "HostedRound",
    "RebuyOffer",
    "RebuyTerms",
    "SeatAt",
    "Settings",
    "Status",
    "TournamentRecord",
]

GAMES = frozenset({"rummy", "poker"})
"""Games the director runs tournaments of (seed 000: rummy; seed 002: poker)."""
RUMMY_VARIANTS = frozenset({"gin", "oklahoma_gin", "rummy", "rummy51", "rummy40", "rummy500"})
MAX_TABLE_SIZE = 8
MAX_TEXT = 200
REBUY_WINDOW_SECONDS = (20, 30)
"""OQ 6: an eliminated player's rebuy window is clamped to 20-30 s."""


class Status(Enum):
    REGISTERING = "registering"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"
    VOIDED = "voided"


@dataclass(frozen=True)
class RebuyTerms:
    """Rules 11-17 and OQ 2, 6: how many, up to which level, the price, the window."""

    max_per_player: int
    max_level: int
    price: int
    fee: int
    window_seconds: int


@dataclass(frozen=True)
class Settings:
    """A tournament's configuration (amounts in minor units of `currency`)."""

    game: str
    variant: str
    name: str
    start_time: datetime
    min_players: int
    max_players: int
    currency: str
    buy_in: int
    fee: int
    starting_chips: int
    table_size: int
    level_seconds: int
    levels: tuple[Level, ...]
    rebuys: RebuyTerms | None
    payouts: tuple[PayoutBracket, ...]
    coupons_accepted: bool
    turn_seconds: int
    winner_risk_limit: bool
    poker: PokerTerms | None = None
    """Poker's terms (game "poker"); None for rummy."""
    coupon_prizes: tuple[CouponPrize, ...] = ()
    """Coupons won by places, apart from the money (rule 48, OQ 29)."""

    def check(self) -> None:
        """Refuse settings out of shape (`InvalidInput`) or that cannot be honoured."""
        try:
            self._check_shape()
        except OutOfBounds as exc:
            raise InvalidInput("invalid_settings", exc.message) from None
        if self.poker is not None:
            _ = self.poker_config  # the poker core's own checks: structure, kind, payouts
        else:
            check_payouts(self.payouts)
            check_covers(self.payouts, self.min_players, self.max_players)
            self.options().check_players(self.max_players)

    def _check_shape(self) -> None:
        if self.game not in GAMES:
            raise OutOfBounds(f"game must be one of {sorted(GAMES)}, got {echo(self.game)}")
        if (self.game == "poker") != (self.poker is not None):
            raise OutOfBounds("poker settings go with game poker, and only with it")
        if not 1 <= len(self.name) <= 100:
            raise OutOfBounds("name must have 1 to 100 characters")
        if self.start_time.tzinfo is None:
            raise OutOfBounds("start_time must be set")
        check_int(self.min_players, "min_players", 2, 100_000)
        check_int(self.max_players, "max_players", self.min_players, 100_000)
        if not self.currency or len(self.currency) > 10:
            raise OutOfBounds("the buy-in needs a currency")
        check_amount(self.buy_in, "buy_in")
        check_amount(self.fee, "fee")
        check_int(self.turn_seconds, "turn_seconds", 1, MAX_CLOCK_SECONDS)
        check_coupon_prizes(self.coupon_prizes, self.max_players)
        if self.poker is not None:
            self._check_poker_shape()
        else:
            self._check_rummy_shape()

    def _check_poker_shape(self) -> None:
        check_amount(self.starting_chips, "starting_chips", low=1)
        check_int(self.table_size, "table_size", 2, MAX_POKER_TABLE_SIZE)
        if self.levels or self.rebuys is not None:
            raise OutOfBounds(
                "a poker tournament has blind levels (poker) and re-entries, not rummy "
                "levels or rebuys"
            )
        if self.variant not in POKER_VARIANTS:
            raise OutOfBounds(
                f"a poker variant is one of {', '.join(sorted(POKER_VARIANTS))}, "
                f"got {echo(self.variant)}"
            )

    def _check_rummy_shape(self) -> None:
        if self.variant not in RUMMY_VARIANTS:
            raise OutOfBounds(
                f"variant must be one of {sorted(RUMMY_VARIANTS)}, got {echo(self.variant)}"
            )
        check_int(self.table_size, "table_size", 2, MAX_TABLE_SIZE)
        check_int(self.level_seconds, "level_seconds", 1, MAX_CLOCK_SECONDS)
        if self.rebuys is not None:
            check_amount(self.rebuys.price, "rebuy price")
            check_amount(self.rebuys.fee, "rebuy fee")
            check_int(self.rebuys.window_seconds, "rebuy window_seconds", *REBUY_WINDOW_SECONDS)

    @cached_property
    def poker_config(self) -> PokerConfig:
        """The poker core's terms (refused by its checks when they cannot be played); the
        pool's part of an entry is the buy-in, the fee is the house's (rule 55). Built and
        checked once per settings: a registration reads it, and checking a big payout
        table for each of 2,000 registrations was most of their cost."""
        terms = self.poker
        assert terms is not None, "a poker tournament's settings"
        return PokerConfig(
            kind=terms.kind,
            table_size=self.table_size,
            starting_stack=self.starting_chips,
            structure=terms.structure(self.starting_chips),
            buy_in=self.buy_in,
            max_players=self.max_players,
            min_players=self.min_players,
            payouts=self.payouts,
            starts_at=epoch(self.start_time) if terms.kind == "scheduled" else 0,
            late_registration_level=terms.late_registration_level,
            max_entries=1 + terms.max_reentries,
            bots_allowed=terms.bots_allowed,
        )

    def options(self) -> Options:
        """The points core's options (its own checks refuse bad levels or chips)."""
        rebuys = self.rebuys
        return Options(
            starting_chips=self.starting_chips,
            table_size=self.table_size,
            levels=self.levels,
            rebuys=None if rebuys is None else RebuyPolicy(rebuys.max_per_player, rebuys.max_level),
            winner_risk_limit=self.winner_risk_limit,
        )


@dataclass(frozen=True)
class Entry:
    """One paid entry: `entry_id` is the wallet's idempotency key; `refunded` once the
    player unregistered or the tournament was cancelled."""

    player: str
    entry_id: str
    refunded: bool = False
    bot: bool = False
    """Registered by the bots service (rule 59): labelled BOT at the tables."""


@dataclass(frozen=True)
class SeatAt:
    table: int
    seat: int
    player: str


@dataclass(frozen=True)
class RebuyOffer:
    """An eliminated player's open rebuy offer (rule 17, OQ 6): no round starts before
    he answered or `until` passed."""

    player: str
    until: datetime


@dataclass(frozen=True)
class HostedRound:
    """A running round and the table host's table playing it ("" until it is opened)."""

    round_id: str
    table_id: str = ""


@dataclass(frozen=True)
class TournamentRecord:
    tournament_id: str
    request_key: str
    settings: Settings
    status: Status = Status.REGISTERING
    entries: tuple[Entry, ...] = ()
    seats: tuple[SeatAt, ...] = ()
    seating_seed: bytes = b""
    """The tournament's seed, drawn (or given) at its creation: the seating draw (rule 7)
    and every balancing draw (rule 42) derive from it; shown once started, for audit."""
    actions: tuple[Action, ...] = ()
    """What the director told the points core since the start, in order."""
    offers: tuple[RebuyOffer, ...] = ()
    hosted: tuple[HostedRound, ...] = ()
    """The running rounds' tables on the table host."""
    poker_inputs: tuple[PokerInput, ...] = ()
    """Poker: what the director told the poker core since the start, in order."""
    hands: tuple[HostedHand, ...] = ()
    """Poker: the hands in play and their tables on the table host."""
    events: int = 0
    """How many events the tournament announced: the next one is numbered events + 1."""
    version: int = 0

    def players(self) -> tuple[str, ...]:
        """Registered players (entries not refunded), in registration order; a poker
        player who re-entered is listed once."""
        return tuple(dict.fromkeys([e.player for e in self.entries if not e.refunded]))

    def bots(self) -> frozenset[str]:
        """The players registered as bots (rule 59)."""
        return frozenset(entry.player for entry in self.entries if entry.bot)

    def paid_entries(self) -> int:
        """Entries paid and not refunded: a poker re-entry counts again."""
        return sum(1 for entry in self.entries if not entry.refunded)

    def entry_of(self, player: str) -> Entry | None:
        """`player`'s entry not refunded, if any."""
        return next((e for e in self.entries if e.player == player and not e.refunded), None)

    def next_entry_id(self, player: str) -> str:
        """A fresh wallet key: a player who unregistered and registers again pays anew."""
        earlier = [entry.player for entry in self.entries].count(player)
        return f"{self.tournament_id}:{player}:entry-{earlier + 1}"

    def with_refunds(self, players: frozenset[str]) -> tuple[Entry, ...]:
        return tuple(
            replace(entry, refunded=True) if entry.player in players else entry
            for entry in self.entries
        )

    def standings(self) -> Tournament | None:
        """The points state once started (every entrant with the starting stack and every
        action since applied), else None."""
        if self.status is Status.REGISTERING or not self.seats or self.settings.poker:
            return None  # poker hands are not played yet: no points state
        state = new_tournament(self.settings.options(), self.players())
        for action in self.actions:
            state, _ = apply(state, action)
        return state

    def prize_pool(self) -> int:
        """Buy-ins of the players registered now and the price of every rebuy (OQ 2)."""
        pool = self.settings.buy_in * self.paid_entries()
        rebuys = self.settings.rebuys
        if rebuys is None:
            return pool
        return pool + rebuys.price * sum(1 for a in self.actions if isinstance(a, Rebuy))


def check_text(text: str, what: str) -> str:
    """A reason or note for the audit trail: at most MAX_TEXT characters."""
    if len(text) > MAX_TEXT:
        raise InvalidInput("invalid_text", f"{what} must have at most {MAX_TEXT} characters")
    return text
