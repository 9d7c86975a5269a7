"""The small interfaces the service layer needs from its adapters."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol, Self

from croupier.wallet.core.ledger import LedgerSlice
from croupier.wallet.core.model import Account, Posting, Transfer, TransferKind
from croupier.wallet.core.money import Currency

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

    async def lock_accounts(self, account_ids: Collection[str]) -> LedgerSlice:
        """Lock the named accounts (in id order) and return them; unknown ids are left out."""
        ...

    async def get_transfers(
        self, transfer_ids: Collection[str], *, lock: bool = False
    ) -> dict[str, Transfer]: ...

    async def reversals_of(self, transfer_ids: Collection[str]) -> dict[str, str]:
        """original transfer id → id of the transfer that reversed it."""
        ...

    async def find_transfers(
        self,
        *,
        table_id: str = "",
        tournament_id: str = "",
        pending_only: bool = False,
    ) -> list[Transfer]: ...

    async def save(self, ledger: LedgerSlice, *, batch_id: str) -> None:
        """Write the slice's new and resolved transfers, postings, balances and outbox rows."""
        ...

    async def statement(
        self, account_id: str, *, after_posting_id: int, limit: int
    ) -> list[StatementLine]: ...


class UnitOfWork(Protocol):
    @property
    def ledger(self) -> LedgerRepository: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Roll back unless `commit()` was called."""
        ...

    async def commit(self) -> None: ...


UnitOfWorkFactory = Callable[[], UnitOfWork]


class WalletMetrics(Protocol):
    def transfers_posted(self, transfers: Sequence[Transfer]) -> None: ...

    def operation_finished(self, operation: str, seconds: float) -> None: ...

    def rejected(self, reason: str) -> None: ...

    def crash_refund(self, game: str, currency: str, amount: int) -> None: ...

    def dead_lettered(self, reason: str) -> None: ...
