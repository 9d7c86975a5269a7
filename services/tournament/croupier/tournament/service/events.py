"""What the director announces: one `Recorded` event per change, numbered per tournament.

Before the start: created (with the seed's commitment), registered, unregistered, started
(a Spin's multiplier drawn with it), cancelled, voided. Once
started, what the points core did (`plan.announced`: rounds started and ended, levels,
eliminations with their rebuy offer, rebuys), the table each round is played at, and the
end with the prizes paid.

They are saved with the record that changed (the PostgreSQL adapter puts them in the
outbox for `croupier.tournament.events` in the same transaction) and replayed by
WatchTournament.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from croupier.tournament.service.model import SeatAt, Settings

__all__ = [
    "BreakStarted",
    "Cancelled",
    "Created",
    "Disqualified",
    "Event",
    "Finished",
    "HandForHand",
    "LevelRaised",
    "PlayerEliminated",
    "PlayerRebought",
    "Recorded",
    "Registered",
    "RoundEnded",
    "RoundHosted",
    "RoundStarted",
    "SpinDrawn",
    "Started",
    "Unregistered",
    "Voided",
]


@dataclass(frozen=True)
class Created:
    settings: Settings
    seed_commitment: str = ""
    """The tournament seed's commitment, published before any draw ("" in old records)."""


@dataclass(frozen=True)
class Registered:
    player: str
    entry_id: str
    bot: bool = False


@dataclass(frozen=True)
class Unregistered:
    player: str


@dataclass(frozen=True)
class Started:
    """Seated by the draw from `seating_seed` (rule 7), each with `starting_chips` (rule 8)."""

    seats: tuple[SeatAt, ...]
    seating_seed: bytes
    starting_chips: int


@dataclass(frozen=True)
class Cancelled:
    reason: str
    refunded: tuple[str, ...]


@dataclass(frozen=True)
class Voided:
    reason: str


@dataclass(frozen=True)
class Disqualified:
    """Rule 49: out by an operator's decision."""

    player: str
    reason: str


@dataclass(frozen=True)
class RoundStarted:
    """Rules 19, 20: the players in seat order, each one's fee, the level's terms."""

    round_id: str
    players: tuple[str, ...]
    fees: tuple[int, ...]
    round_fee: int
    chip_ratio: int
    final_table: bool


@dataclass(frozen=True)
class RoundHosted:
    round_id: str
    table_id: str


@dataclass(frozen=True)
class RoundEnded:
    """Rules 21-23, 33; `winner` "" when nobody won and the fees went back (OQ 24)."""

    round_id: str
    winner: str
    pot: int
    payments: tuple[tuple[str, int], ...]
    points: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class LevelRaised:
    level: int
    bonus_to: tuple[str, ...]


@dataclass(frozen=True)
class PlayerEliminated:
    """Rule 9; `offer_until`: his rebuy offer's end (rule 17), None without one."""

    player: str
    offer_until: datetime | None


@dataclass(frozen=True)
class PlayerRebought:
    player: str
    rebuys: int


@dataclass(frozen=True)
class SpinDrawn:
    """Rule 53: a Spin's multiplier and prizes by place, drawn from the seed revealed here
    (committed at creation), before the first hand."""

    multiplier: int
    prizes: tuple[int, ...]
    seed_commitment: str
    revealed_seed: bytes


@dataclass(frozen=True)
class HandForHand:
    """Poker: hand-for-hand started (`on`) or stopped."""

    on: bool


@dataclass(frozen=True)
class BreakStarted:
    """Poker: a break of `seconds`; no hand is dealt until it ends."""

    seconds: int


@dataclass(frozen=True)
class Finished:
    """Rules 2, 47: the winner, and each prize paid (players without one not listed)."""

    winner: str
    prizes: tuple[tuple[str, int], ...]


Event = (
    Created
    | Registered
    | Unregistered
    | Started
    | Cancelled
    | Voided
    | Disqualified
    | RoundStarted
    | RoundHosted
    | RoundEnded
    | LevelRaised
    | PlayerEliminated
    | PlayerRebought
    | SpinDrawn
    | HandForHand
    | BreakStarted
    | Finished
)


@dataclass(frozen=True)
class Recorded:
    tournament_id: str
    sequence: int
    at: datetime
    event: Event
