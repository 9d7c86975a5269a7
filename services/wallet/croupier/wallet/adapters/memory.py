"""In-memory ledger repository and unit of work: for unit tests of the service layer.

Same interface as the PostgreSQL adapter (`service.ports`). A unit of work works on a copy
and replaces the store on commit, so a failed operation leaves nothing behind. Units of
work are serialized by one lock (no concurrency semantics to imitate). Not for production:
the schema's constraints and triggers exist only in PostgreSQL.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self

from croupier.wallet.core.ledger import LedgerSlice
from croupier.wallet.core.model import Account, Posting, Transfer, TransferStatus
from croupier.wallet.core.money import CURRENCIES, Currency
from croupier.wallet.service.ports import DuplicateTransferId, StatementLine

__all__ = ["InMemoryLedger", "InMemoryStore", "InMemoryUnitOfWork"]


@dataclass
class InMemoryStore:
    currencies: dict[str, Currency] = field(default_factory=lambda: dict(CURRENCIES))
    accounts: dict[str, Account] = field(default_factory=dict)
    transfers: dict[str, Transfer] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    postings: list[Posting] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def factory(self) -> InMemoryUnitOfWork:
        return InMemoryUnitOfWork(self)


class InMemoryLedger:
    def __init__(self, state: InMemoryStore) -> None:
        self._state = state

    async def currency(self, code: str) -> Currency | None:
        return self._state.currencies.get(code)

    async def get_account(self, account_id: str) -> Account | None:
        return self._state.accounts.get(account_id)

    async def add_account(self, account: Account) -> Account:
        return self._state.accounts.setdefault(account.account_id, account)

    async def lock_accounts(self, account_ids: Collection[str]) -> LedgerSlice:
        return LedgerSlice(
            self._state.accounts[i] for i in sorted(account_ids) if i in self._state.accounts
        )

    async def get_transfers(
        self, transfer_ids: Collection[str], *, lock: bool = False
    ) -> dict[str, Transfer]:
        return {i: self._state.transfers[i] for i in transfer_ids if i in self._state.transfers}

    async def reversals_of(self, transfer_ids: Collection[str]) -> dict[str, str]:
        wanted = set(transfer_ids)
        return {
            t.reversal_of: t.transfer_id
            for t in self._state.transfers.values()
            if t.reversal_of in wanted
        }

    async def find_transfers(
        self, *, table_id: str = "", tournament_id: str = "", pending_only: bool = False
    ) -> list[Transfer]:
        found = []
        for transfer_id in self._state.order:
            t = self._state.transfers[transfer_id]
            if table_id and t.references.table_id != table_id:
                continue
            if tournament_id and t.references.tournament_id != tournament_id:
                continue
            if pending_only and t.status is not TransferStatus.PENDING:
                continue
            found.append(t)
        return found

    async def save(self, ledger: LedgerSlice, *, batch_id: str) -> None:
        reversed_ = {t.reversal_of for t in self._state.transfers.values() if t.reversal_of}
        for transfer in ledger.new_transfers:
            if transfer.transfer_id in self._state.transfers or (
                transfer.reversal_of and transfer.reversal_of in reversed_
            ):
                raise DuplicateTransferId(transfer.transfer_id)
            self._state.transfers[transfer.transfer_id] = transfer
            self._state.order.append(transfer.transfer_id)
        for transfer in ledger.resolved_transfers:
            self._state.transfers[transfer.transfer_id] = transfer
        self._state.postings.extend(ledger.postings)
        for account in ledger.changed_accounts:
            self._state.accounts[account.account_id] = account

    async def statement(
        self, account_id: str, *, after_posting_id: int, limit: int
    ) -> list[StatementLine]:
        lines = []
        for number, posting in enumerate(self._state.postings, start=1):
            if posting.account_id != account_id or number <= after_posting_id:
                continue
            transfer = self._state.transfers[posting.transfer_id]
            counter = (
                transfer.debit_account_id if posting.amount > 0 else transfer.credit_account_id
            )
            lines.append(
                StatementLine(
                    posting_id=number,
                    posting=posting,
                    kind=transfer.kind,
                    counter_account_id=counter,
                )
            )
        return lines[:limit]


class InMemoryUnitOfWork:
    def __init__(self, store: InMemoryStore) -> None:
        self._store = store
        self._working: InMemoryStore | None = None

    @property
    def ledger(self) -> InMemoryLedger:
        assert self._working is not None, "use `async with` first"
        return InMemoryLedger(self._working)

    async def __aenter__(self) -> Self:
        await self._store.lock.acquire()
        self._working = InMemoryStore(
            currencies=self._store.currencies,
            accounts=dict(self._store.accounts),
            transfers=dict(self._store.transfers),
            order=list(self._store.order),
            postings=list(self._store.postings),
            lock=self._store.lock,
        )
        return self

    async def commit(self) -> None:
        assert self._working is not None
        working = self._working
        self._store.accounts = working.accounts
        self._store.transfers = working.transfers
        self._store.order = working.order
        self._store.postings = working.postings

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._working = None
        self._store.lock.release()
