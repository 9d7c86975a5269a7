"""What the lobby stores: a listed table and a matchmaking ticket, each with the version
its store compares before replacing it (two lobby replicas never both change one row)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from croupier.lobby.core.matchmaker import Ticket
from croupier.lobby.core.seats import LobbyTable

__all__ = ["TableRecord", "TicketRecord", "TicketStatus", "WaitingEntry"]


@dataclass(frozen=True)
class TableRecord:
    table: LobbyTable
    request_key: str
    version: int = 1
    change: int = 0
    """The store's change number of its last save (WatchTables reads changes after one)."""


class TicketStatus(enum.Enum):
    WAITING = "waiting"
    MATCHED = "matched"
    SEATED = "seated"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    FAILED = "failed"


@dataclass(frozen=True)
class TicketRecord:
    ticket: Ticket
    request_key: str
    options_json: str
    """The game's options as a template (the stake is set once matched)."""
    stack: int
    status: TicketStatus = TicketStatus.WAITING
    match_id: str = ""
    stake: int = 0
    table_id: str = ""
    seat: int = 0
    failure: str = ""
    version: int = 1


@dataclass(frozen=True)
class WaitingEntry:
    """An account waiting for a seat at any public table of one kind and stake (its
    `list_key`: the terms' shape, currency and stake), with the stack it buys in with."""

    list_key: str
    player: str
    game: str
    currency: str
    stake: int
    stack: int
    created: datetime
