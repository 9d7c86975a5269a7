"""In-memory ledger repository and unit of work: for unit tests of the service layer.

Same interface as the PostgreSQL adapter (`service.ports`). A unit of work works on a copy
and replaces the store on commit, so a failed operation leaves nothing behind. Units of
work are serialized by one lock (no concurrency semantics to imitate). Not for production:
the schema's constraints and triggers exist only in PostgreSQL.

`execute` runs the ledger's rules with `core.ledger.LedgerSlice`: the Python copy of what
the SQL function `ledger_execute` (migration 0004) does in PostgreSQL, where the wallet runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType
from typing import Self

from croupier.game.money import CURRENCIES, Currency
from croupier.wallet.core.errors import TransferNotFound, TransferNotPending, UnbalancedSettlement
from croupier.wallet.core.ledger import LedgerSlice
from croupier.wallet.core.model import Account, Posting, Transfer, TransferStatus
from croupier.wallet.service.operations import (
    Apply,
    ExpectPosted,
    Operation,
    PostHold,
    Reverse,
    VoidHold,
)
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

    async def get_transfers(self, transfer_ids: Collection[str]) -> dict[str, Transfer]:
        return {i: self._state.transfers[i] for i in transfer_ids if i in self._state.transfers}

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

    async def execute(
        self,
        operations: Sequence[Operation],
        *,
        batch_id: str,
        now: datetime,
        accounts: Sequence[Account] = (),
    ) -> tuple[list[Transfer], bool]:
        state = self._state
        # The unit of work's copy: dropped, with these accounts, if the batch is refused.
        for account in accounts:
            state.accounts.setdefault(account.account_id, account)
        referenced = sorted(
            {op.transfer_id for op in operations if isinstance(op, PostHold | VoidHold)}
            | {op.original_id for op in operations if isinstance(op, Reverse)}
        )
        for transfer_id in referenced:
            if transfer_id not in state.transfers:
                raise TransferNotFound(f"transfer {transfer_id!r} does not exist")
        held = {i: state.transfers[i] for i in referenced}
        if not any(isinstance(op, Apply | Reverse) for op in operations) and _already_done(
            operations, held
        ):
            done = [
                held[op.transfer_id] for op in operations if isinstance(op, PostHold | VoidHold)
            ]
            return done, True
        originals = {op.original_id for op in operations if isinstance(op, Reverse)}
        reversed_ids = {
            t.reversal_of for t in state.transfers.values() if t.reversal_of in originals
        }
        account_ids: set[str] = set()
        for op in operations:
            if isinstance(op, Apply):
                account_ids.update((op.spec.debit_account_id, op.spec.credit_account_id))
            elif isinstance(op, ExpectPosted):
                account_ids.add(op.account_id)
        for transfer in held.values():
            account_ids.update((transfer.debit_account_id, transfer.credit_account_id))
        ledger = LedgerSlice(state.accounts[i] for i in sorted(account_ids) if i in state.accounts)
        current = dict(held)
        results: list[Transfer] = []
        for op in operations:
            if isinstance(op, Apply):
                results.append(ledger.apply(op.spec, now))
            elif isinstance(op, PostHold):
                current[op.transfer_id] = ledger.post(current[op.transfer_id], op.amount, now)
                results.append(current[op.transfer_id])
            elif isinstance(op, VoidHold):
                current[op.transfer_id] = ledger.void(current[op.transfer_id], now)
                results.append(current[op.transfer_id])
            elif isinstance(op, Reverse):
                results.append(
                    ledger.reverse(
                        current[op.original_id],
                        op.transfer_id,
                        now,
                        kind=op.kind,
                        metadata=op.metadata,
                        already_reversed=op.original_id in reversed_ids,
                    )
                )
                reversed_ids.add(op.original_id)
            else:
                balance = ledger.account(op.account_id).posted
                if balance != op.posted:
                    raise UnbalancedSettlement(
                        f"account {op.account_id!r} would hold {balance}, expected {op.posted}"
                    )
        self._save(ledger)
        return results, False

    def _save(self, ledger: LedgerSlice) -> None:
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


def _already_done(operations: Sequence[Operation], held: dict[str, Transfer]) -> bool:
    """Whether a post/void-only batch was applied before (every hold in its end state)."""
    for op in operations:
        if isinstance(op, PostHold):
            hold = held[op.transfer_id]
            wanted = hold.amount if op.amount is None else op.amount
            if hold.status is not TransferStatus.POSTED or hold.posted_amount != wanted:
                if hold.status is not TransferStatus.PENDING:
                    raise TransferNotPending(
                        f"transfer {hold.transfer_id!r} is already {hold.status}"
                        + (f" for {hold.posted_amount}" if hold.posted_amount else "")
                        + f"; it cannot be posted for {wanted}"
                    )
                return False
        elif isinstance(op, VoidHold):
            hold = held[op.transfer_id]
            if hold.status is not TransferStatus.VOIDED:
                if hold.status is not TransferStatus.PENDING:
                    raise TransferNotPending(
                        f"transfer {hold.transfer_id!r} is already posted; it cannot be voided "
                        "(reverse it instead)"
                    )
                return False
    return True
