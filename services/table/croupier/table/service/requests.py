"""The money the table host asks of the wallet once a command is logged, as domain requests.

The host says what happened at the table (a hand to settle, a player to cash out, a table
that could not be rebuilt); the wallet names the accounts and applies each request once,
by the key each request derives here from its place in the table's log, so a request sent
again (a retry, a rebuilt host) is the same request. The adapter of the `WalletRequests`
port (`croupier.table.adapters.wallet_requests`) turns them into the wallet's messages.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from croupier.game import JSON


def short_digest(text: str, length: int = 32) -> str:
    """A hex digest of `text`: a short stand-in, made of characters a wallet id allows, for
    free text (a command id, a player id) in a wallet id."""
    return hashlib.sha256(text.encode()).hexdigest()[:length]


@dataclass(frozen=True)
class SettleHand:
    """Move a finished hand's result between the table's seats (and the house's
    commission): `deltas` sum to minus the commission's total."""

    table_id: str
    game: str
    hand_number: int
    currency: str
    deltas: Mapping[str, int]
    commission: Mapping[str, int]
    details: JSON

    @property
    def idempotency_key(self) -> str:
        return f"{self.table_id}:{self.hand_number}"


@dataclass(frozen=True)
class CashOut:
    """Give `player` back `amount` from his seat at the table: log entry `log_index` let
    him go (he left, the table closed, or a top-up the cap turned away)."""

    table_id: str
    game: str
    player: str
    amount: int
    currency: str
    log_index: int

    @property
    def transfer_id(self) -> str:
        return f"cashout:{self.table_id}:{self.log_index}:{short_digest(self.player, 16)}"


@dataclass(frozen=True)
class RefundCrashedTable:
    """Void a table that could not be rebuilt: the wallet voids its holds and gives every
    seat's money back to its player."""

    table_id: str
    game: str
    reason: str

    @property
    def idempotency_key(self) -> str:
        return f"{self.table_id}:crash"


MoneyRequest = SettleHand | CashOut | RefundCrashedTable
