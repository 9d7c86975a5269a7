"""The ledger aggregate: the accounts one operation touches, and the rules for changing them.

A `LedgerSlice` is loaded (accounts locked) by the repository, changed here in memory, and
written back by the repository in the same database transaction. Every rule that keeps the
books right lives here, so it is tested without a database:

- every transfer debits one account and credits another by the same amount > 0, in the
  accounts' common currency (so each currency's balances add up to zero);
- a non-house account never goes below zero, counting money held by pending transfers;
- a pending transfer is resolved at most once: posted (fully or partly) or voided;
- a posted transfer never changes; a correction is a new reversing transfer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from datetime import datetime

from croupier.wallet.core.errors import (
    AccountNotFound,
    AlreadyReversed,
    BalanceOutOfRange,
    CurrencyMismatch,
    InsufficientFunds,
    InvalidRequest,
    TransferNotPending,
)
from croupier.wallet.core.model import (
    Account,
    Posting,
    Transfer,
    TransferKind,
    TransferSpec,
    TransferStatus,
)

__all__ = ["LedgerSlice"]


class LedgerSlice:
    """The accounts involved in one unit of work, plus what changed in them."""

    def __init__(self, accounts: Iterable[Account]) -> None:
        self._accounts: dict[str, Account] = {a.account_id: a for a in accounts}
        self._dirty: set[str] = set()
        self.new_transfers: list[Transfer] = []
        self.resolved_transfers: list[Transfer] = []
        self.postings: list[Posting] = []

    # -- queries -------------------------------------------------------------------------

    def account(self, account_id: str) -> Account:
        try:
            return self._accounts[account_id]
        except KeyError:
            raise AccountNotFound(f"account {account_id!r} does not exist") from None

    @property
    def accounts(self) -> Mapping[str, Account]:
        return self._accounts

    @property
    def changed_accounts(self) -> list[Account]:
        return [self._accounts[i] for i in sorted(self._dirty)]

    @property
    def posted_transfers(self) -> list[Transfer]:
        """Transfers that moved posted money in this slice (for the outbox)."""
        moved = [t for t in self.new_transfers if t.status is TransferStatus.POSTED]
        return moved + [t for t in self.resolved_transfers if t.status is TransferStatus.POSTED]

    # -- commands ------------------------------------------------------------------------

    def apply(self, spec: TransferSpec, now: datetime) -> Transfer:
        """Record a new transfer: posted at once, or pending (a hold) if `spec.pending`."""
        spec.validate()
        debit = self.account(spec.debit_account_id)
        credit = self.account(spec.credit_account_id)
        for account in (debit, credit):
            if account.currency != spec.currency:
                raise CurrencyMismatch(
                    f"account {account.account_id!r} holds {account.currency}, "
                    f"but the transfer is in {spec.currency}"
                )
        self._require_available(debit, spec.amount)
        if spec.pending:
            self._replace(debit, debits_pending=debit.debits_pending + spec.amount)
            self._replace(credit, credits_pending=credit.credits_pending + spec.amount)
        transfer = spec.record(now)
        if not spec.pending:
            self._move(transfer, spec.amount, now)
        self.new_transfers.append(transfer)
        return transfer

    def post(self, pending: Transfer, amount: int | None, now: datetime) -> Transfer:
        """Post a hold: all of it (`amount=None`) or part; the rest is released."""
        self._require_pending(pending)
        amount = pending.amount if amount is None else amount
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            raise InvalidRequest(f"amount to post must be greater than zero, got {amount}")
        if amount > pending.amount:
            raise InvalidRequest(
                f"cannot post {amount}: transfer {pending.transfer_id!r} "
                f"holds only {pending.amount}"
            )
        self._release(pending)
        # The hold guaranteed the amount: releasing it first cannot make the debit fail.
        posted = dataclasses.replace(
            pending, status=TransferStatus.POSTED, posted_amount=amount, resolved_at=now
        )
        self._move(posted, amount, now)
        self.resolved_transfers.append(posted)
        return posted

    def void(self, pending: Transfer, now: datetime) -> Transfer:
        """Cancel a hold: the money stays where it was."""
        self._require_pending(pending)
        self._release(pending)
        voided = dataclasses.replace(pending, status=TransferStatus.VOIDED, resolved_at=now)
        self.resolved_transfers.append(voided)
        return voided

    def reverse(
        self,
        original: Transfer,
        transfer_id: str,
        now: datetime,
        *,
        kind: TransferKind = TransferKind.REVERSAL,
        metadata: Mapping[str, str] | None = None,
        already_reversed: bool = False,
    ) -> Transfer:
        """A new transfer moving the original's posted amount back, linked to it."""
        if original.status is not TransferStatus.POSTED or original.posted_amount is None:
            raise TransferNotPending(
                f"transfer {original.transfer_id!r} is {original.status}; only posted "
                "transfers can be reversed (void a pending one instead)"
            )
        if original.kind is TransferKind.REVERSAL:
            raise InvalidRequest(f"transfer {original.transfer_id!r} is itself a reversal")
        if already_reversed:
            raise AlreadyReversed(f"transfer {original.transfer_id!r} was already reversed")
        spec = TransferSpec(
            transfer_id=transfer_id,
            debit_account_id=original.credit_account_id,
            credit_account_id=original.debit_account_id,
            amount=original.posted_amount,
            currency=original.currency,
            kind=kind,
            references=original.references,
            metadata=dict(metadata or {}),
            reversal_of=original.transfer_id,
        )
        return self.apply(spec, now)

    # -- internals -----------------------------------------------------------------------

    def _require_available(self, debit: Account, amount: int) -> None:
        if not debit.may_go_negative and debit.available < amount:
            raise InsufficientFunds(
                f"account {debit.account_id!r} has {debit.available} available "
                f"({debit.currency} minor units), {amount} needed"
            )

    @staticmethod
    def _require_pending(transfer: Transfer) -> None:
        if transfer.status is not TransferStatus.PENDING:
            raise TransferNotPending(
                f"transfer {transfer.transfer_id!r} is {transfer.status}, not pending; "
                "a hold can be posted or voided only once"
            )

    def _release(self, pending: Transfer) -> None:
        debit = self.account(pending.debit_account_id)
        credit = self.account(pending.credit_account_id)
        self._replace(debit, debits_pending=debit.debits_pending - pending.amount)
        self._replace(credit, credits_pending=credit.credits_pending - pending.amount)

    def _move(self, transfer: Transfer, amount: int, now: datetime) -> None:
        debit = self.account(transfer.debit_account_id)
        self._require_available(debit, amount)
        debit = self._replace(
            debit, posted=debit.posted - amount, posting_count=debit.posting_count + 1
        )
        credit = self.account(transfer.credit_account_id)
        credit = self._replace(
            credit, posted=credit.posted + amount, posting_count=credit.posting_count + 1
        )
        for account, signed in ((debit, -amount), (credit, amount)):
            self.postings.append(
                Posting(
                    transfer_id=transfer.transfer_id,
                    account_id=account.account_id,
                    currency=account.currency,
                    amount=signed,
                    balance_after=account.posted,
                    posted_at=now,
                    sequence=account.posting_count,
                )
            )

    def _replace(
        self,
        account: Account,
        *,
        posted: int | None = None,
        debits_pending: int | None = None,
        credits_pending: int | None = None,
        posting_count: int | None = None,
    ) -> Account:
        updated = dataclasses.replace(
            account,
            posted=account.posted if posted is None else posted,
            debits_pending=account.debits_pending if debits_pending is None else debits_pending,
            credits_pending=account.credits_pending if credits_pending is None else credits_pending,
            posting_count=account.posting_count if posting_count is None else posting_count,
        )
        # PostgreSQL stores these as bigint and refuses the statement past its range.
        limit = BalanceOutOfRange.LIMIT
        for value in (updated.posted, updated.debits_pending, updated.credits_pending):
            if not -limit - 1 <= value <= limit:
                raise BalanceOutOfRange()
        self._accounts[account.account_id] = updated
        self._dirty.add(account.account_id)
        return updated
