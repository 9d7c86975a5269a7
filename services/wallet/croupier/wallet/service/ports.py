"""The small interfaces the service layer needs from its adapters."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Protocol, Self

from croupier.game.money import Currency
from croupier.wallet.core.model import Account, Posting, Transfer, TransferKind
from croupier.wallet.service.operations import Operation

__all__ = [
    "DuplicateTransferId",
    "LedgerRepository",
    "RetryableConflict",
    "StatementLine",
    "UnitOfWork",
    "UnitOfWorkFactory",
    "WalletMetrics",
]


class RetryableConflict(Exception):
    """The database aborted the transaction (deadlock, serialization); run it again."""


class DuplicateTransferId(RetryableConflict):
    """A concurrent request inserted the same transfer id first: look it up again."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StatementLine:
    posting_id: int
    posting: Posting
    kind: TransferKind
    counter_account_id: str


class LedgerRepository(Protocol):
    async def currency(self, code: str) -> Currency | None: ...

    async def get_account(self, account_id: str) -> Account | None: ...

    async def add_account(self, account: Account) -> Account:
        """Insert unless the id exists; return the stored account either way."""
        ...

    async def get_transfers(self, transfer_ids: Collection[str]) -> dict[str, Transfer]: ...

    async def find_transfers(
        self,
        *,
        table_id: str = "",
        tournament_id: str = "",
        pending_only: bool = False,
    ) -> list[Transfer]: ...

    async def execute(
        self,
        operations: Sequence[Operation],
        *,
        batch_id: str,
        now: datetime,
        accounts: Sequence[Account] = (),
    ) -> tuple[list[Transfer], bool]:
        """Apply the (validated) operations all-or-nothing, in order; return the transfers in
        operation order (post/void: the hold after the change) and whether the batch was a
        replay (only post/void operations, every hold already in the requested state).
        `accounts` are opened first (unless they exist), in the same transaction.

        Checks every rule that depends on stored state, raising the `core.errors` error of
        the first operation that breaks one: accounts exist and hold the transfer's
        currency, funds suffice (non-house accounts never go below zero, counting holds), a
        hold is posted (at most its amount) or voided once, only posted transfers are
        reversed and only once, `ExpectPosted` balances. Writes the transfers, postings,
        balances and one outbox event per posted transfer, atomically. A new transfer id
        that already exists raises `DuplicateTransferId` (the caller replays). PostgreSQL:
        the SQL function `ledger_execute` (migration 0004); in memory: `core.ledger`.
        """
        ...

    async def statement(
        self, account_id: str, *, after_posting_id: int, limit: int
    ) -> list[StatementLine]: ...


class UnitOfWork(Protocol):
    """A connection (PostgreSQL: every repository write is atomic by itself) or a working copy
    (in memory: replaces the store on `commit()`)."""

    @property
    def ledger(self) -> LedgerRepository: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Discard what was not committed (in memory); release the connection."""
        ...

    async def commit(self) -> None: ...


UnitOfWorkFactory = Callable[[], UnitOfWork]


class WalletMetrics(Protocol):
    def transfers_posted(self, transfers: Sequence[Transfer]) -> None: ...

    def operation_finished(self, operation: str, seconds: float) -> None: ...

    def rejected(self, reason: str) -> None: ...

    def crash_refund(self, game: str, currency: str, amount: int) -> None: ...

    def dead_lettered(self, reason: str) -> None: ...

    def ignored(self, reason: str) -> None: ...
