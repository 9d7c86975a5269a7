"""What the director announces: one `Recorded` event per change, numbered per tournament.

They are saved with the record that changed (the PostgreSQL adapter puts them in the
outbox for `croupier.tournament.events` in the same transaction) and replayed by
WatchTournament.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from croupier.tournament.service.model import SeatAt, Settings

__all__ = [
    "Cancelled",
    "Created",
    "Event",
    "Recorded",
    "Registered",
    "Started",
    "Unregistered",
    "Voided",
]


@dataclass(frozen=True)
class Created:
    settings: Settings


@dataclass(frozen=True)
class Registered:
    player: str
    entry_id: str


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


Event = Created | Registered | Unregistered | Started | Cancelled | Voided


@dataclass(frozen=True)
class Recorded:
    tournament_id: str
    sequence: int
    at: datetime
    event: Event
