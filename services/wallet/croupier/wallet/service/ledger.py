"""The ledger service: runs batches of operations all-or-nothing, idempotently.

Idempotency: every new transfer carries a client-chosen id. If every new id in a batch
already exists with the same content, the batch is a replay and the stored transfers are
returned; if any exists with different content (or only some exist) nothing applies and
`IdempotencyConflict` says which ids and fields. A batch of only post/void operations is a
replay when every hold is already in the requested state.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from croupier.game.money import Currency
from croupier.wallet.core.errors import (
    AccountNotFound,
    InvalidRequest,
    LedgerError,
    TransferNotFound,
    UnknownCurrency,
)
from croupier.wallet.core.model import (
    Account,
    AccountKind,
    Transfer,
    TransferSpec,
    TransferStatus,
    check_currency,
    check_id,
)
from croupier.wallet.service.grouping import TransferGroups
from croupier.wallet.service.operations import (
    Apply,
    OpenAccount,
    Operation,
    PostHold,
    Reverse,
    VoidHold,
)
from croupier.wallet.service.ports import (
    RetryableConflict,
    StatementLine,
    UnitOfWork,
    UnitOfWorkFactory,
    WalletMetrics,
)
from croupier.wallet.service.replays import (
    check_batch,
    refuse_posting_non_holds,
    replayed_transfers,
)

__all__ = ["BatchResult", "LedgerService", "Statement"]

MAX_PAGE = 500
_MAX_TOKEN_DIGITS = len(str(2**63 - 1))


@dataclass(frozen=True, slots=True, kw_only=True)
class BatchResult:
    """The transfers of a batch, in operation order (post/void: the hold after the change)."""

    transfers: tuple[Transfer, ...]
    replayed: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Statement:
    account: Account
    lines: tuple[StatementLine, ...]
    next_page_token: str


class LedgerService:
    """Generic ledger operations. Game-specific helpers build on `execute`."""

    def __init__(
        self,
        *,
        unit_of_work: UnitOfWorkFactory,
        clock: Callable[[], datetime],
        metrics: WalletMetrics,
        max_attempts: int = 8,
        group_commits: int = 0,
    ) -> None:
        """`group_commits` > 0: concurrent single transfers share transactions, at most
        that many at a time (see service/grouping.py); 0: each runs in its own."""
        self._uow = unit_of_work
        self._clock = clock
        self.metrics = metrics
        self._max_attempts = max_attempts
        self._groups = (
            TransferGroups(
                run_alone=self._transfer_alone,
                run_together=self._transfers_together,
                concurrency=group_commits,
            )
            if group_commits
            else None
        )

    def now(self) -> datetime:
        """The wallet's time (its clock: tests step it)."""
        return self._clock()

    # -- accounts ------------------------------------------------------------------------

    async def open_account(self, kind: AccountKind, owner: str, currency_code: str) -> Account:
        """Open the account (or return it if it exists): its id is derived from the three."""
        async with self._uow() as uow:
            account = await self._new_account(
                uow, OpenAccount(kind=kind, owner=owner, currency=currency_code)
            )
            stored = await uow.ledger.add_account(account)
            await uow.commit()
        return stored

    async def _new_account(self, uow: UnitOfWork, wanted: OpenAccount) -> Account:
        check_id(wanted.owner, "owner")
        # The derived id must be a valid id too, or the account could never be named again.
        account_id = check_id(wanted.account_id, "account id")
        currency = await self._currency(uow, wanted.currency)
        if not wanted.kind.allows(currency.kind):
            raise InvalidRequest(
                f"a {wanted.kind.value} account cannot hold {currency.code} ({currency.kind.value})"
            )
        return Account(
            account_id=account_id,
            kind=wanted.kind,
            currency=currency.code,
            owner=wanted.owner,
            opened_at=self._clock(),
        )

    async def account(self, account_id: str) -> Account:
        check_id(account_id, "account_id")
        async with self._uow() as uow:
            found = await uow.ledger.get_account(account_id)
        if found is None:
            raise AccountNotFound(f"account {account_id!r} does not exist")
        return found

    async def currency(self, code: str) -> Currency:
        async with self._uow() as uow:
            return await self._currency(uow, code)

    async def transfer_record(self, transfer_id: str) -> Transfer:
        check_id(transfer_id, "transfer_id")
        async with self._uow() as uow:
            found = await uow.ledger.get_transfers([transfer_id])
        if transfer_id not in found:
            raise TransferNotFound(f"transfer {transfer_id!r} does not exist")
        return found[transfer_id]

    async def find_transfers(
        self, *, table_id: str = "", tournament_id: str = ""
    ) -> list[Transfer]:
        """Transfers referencing a table or tournament, oldest first."""
        async with self._uow() as uow:
            return await uow.ledger.find_transfers(table_id=table_id, tournament_id=tournament_id)

    async def statement(self, account_id: str, *, page_size: int, page_token: str) -> Statement:
        """Posted movements of one account, oldest first, `page_size` at a time."""
        check_id(account_id, "account_id")
        # A token is a posting id: decimal ASCII digits of a bigint.
        if page_token and not (
            len(page_token) <= _MAX_TOKEN_DIGITS
            and page_token.isascii()
            and page_token.isdigit()
            and int(page_token) < 2**63
        ):
            raise InvalidRequest("page_token is not one this service returned")
        after = int(page_token) if page_token else 0
        limit = min(max(page_size, 1), MAX_PAGE) if page_size else 100
        async with self._uow() as uow:
            account = await uow.ledger.get_account(account_id)
            if account is None:
                raise AccountNotFound(f"account {account_id!r} does not exist")
            lines = await uow.ledger.statement(account_id, after_posting_id=after, limit=limit + 1)
        more = len(lines) > limit
        lines = lines[:limit]
        token = str(lines[-1].posting_id) if more and lines else ""
        return Statement(account=account, lines=tuple(lines), next_page_token=token)

    # -- transfers -----------------------------------------------------------------------

    async def transfer(
        self, spec: TransferSpec, *, opening: Sequence[OpenAccount] = ()
    ) -> tuple[Transfer, bool]:
        """One transfer (posted, or a hold if `spec.pending`); returns it and `replayed`.
        `opening`: accounts it needs, opened with it (or not at all if it is refused)."""
        if opening:
            result = await self.execute(
                [Apply(spec)], operation=_operation_name(spec), opening=opening
            )
            return result.transfers[0], result.replayed
        if self._groups is None:
            return await self._transfer_alone(spec)
        try:
            check_batch([Apply(spec)], "")  # a malformed request never joins a group
        except LedgerError as error:
            self.metrics.rejected(error.reason)
            raise
        return await self._groups.submit(spec)

    async def _transfer_alone(self, spec: TransferSpec) -> tuple[Transfer, bool]:
        result = await self.execute([Apply(spec)], operation=_operation_name(spec))
        return result.transfers[0], result.replayed

    async def _transfers_together(self, specs: Sequence[TransferSpec]) -> tuple[Transfer, ...]:
        """New transfers in one transaction, all or none, counted as single transfers. No
        retry and no replay: a refused group is run again one transfer at a time."""
        started = time.perf_counter()
        result = await self._execute_once([Apply(spec) for spec in specs], "", (), optimistic=True)
        self._count_finished(
            [_operation_name(spec) for spec in specs], time.perf_counter() - started, result
        )
        return result.transfers

    async def post(self, transfer_id: str, amount: int | None = None) -> tuple[Transfer, bool]:
        result = await self.execute(
            [PostHold(transfer_id=transfer_id, amount=amount)], operation="post"
        )
        return result.transfers[0], result.replayed

    async def void(self, transfer_id: str) -> tuple[Transfer, bool]:
        result = await self.execute([VoidHold(transfer_id=transfer_id)], operation="void")
        return result.transfers[0], result.replayed

    async def reverse(
        self, original_id: str, transfer_id: str, metadata: dict[str, str] | None = None
    ) -> tuple[Transfer, bool]:
        op = Reverse(original_id=original_id, transfer_id=transfer_id, metadata=metadata or {})
        result = await self.execute([op], operation="reverse")
        return result.transfers[0], result.replayed

    async def execute(
        self,
        operations: Sequence[Operation],
        *,
        batch_id: str = "",
        operation: str = "batch",
        opening: Sequence[OpenAccount] = (),
    ) -> BatchResult:
        """Run `operations` in one transaction: all apply, or none (and the error is raised).
        `opening`: accounts the batch needs, opened (unless they exist) in that transaction."""
        started = time.perf_counter()
        try:
            check_batch(operations, batch_id)
            result = await self._with_retries(operations, batch_id, opening)
        except LedgerError as error:
            self.metrics.rejected(error.reason)
            raise
        self._count_finished([operation], time.perf_counter() - started, result)
        return result

    # -- internals -----------------------------------------------------------------------

    def _count_finished(
        self, operations: Sequence[str], elapsed: float, result: BatchResult
    ) -> None:
        """Metrics of requests that succeeded (one name per request; a group is several)."""
        for operation in operations:
            self.metrics.operation_finished(operation, elapsed)
        if not result.replayed:
            self.metrics.transfers_posted(
                [t for t in result.transfers if t.status is TransferStatus.POSTED]
            )

    @staticmethod
    async def _currency(uow: UnitOfWork, code: str) -> Currency:
        currency = await uow.ledger.currency(check_currency(code))
        if currency is None:
            raise UnknownCurrency(
                f"currency {code!r} is unknown: use an ISO 4217 code the wallet supports, "
                "PLAY (play money) or CHIP (virtual chips)"
            )
        return currency

    async def _with_retries(
        self, operations: Sequence[Operation], batch_id: str, opening: Sequence[OpenAccount]
    ) -> BatchResult:
        # First attempt is optimistic: no look-up of the new ids, since a reused id makes the
        # insert fail (unique key) and a refused request is looked at again below. A replay
        # or an error therefore costs a second transaction; a first-time request does not.
        try:
            return await self._execute_once(operations, batch_id, opening, optimistic=True)
        except (LedgerError, RetryableConflict):
            pass
        for attempt in range(self._max_attempts):
            try:
                return await self._execute_once(operations, batch_id, opening, optimistic=False)
            except RetryableConflict:
                if attempt == self._max_attempts - 1:
                    raise
                await asyncio.sleep(0.001 * (attempt + 1))
        raise AssertionError("unreachable")

    async def _execute_once(
        self,
        operations: Sequence[Operation],
        batch_id: str,
        opening: Sequence[OpenAccount],
        *,
        optimistic: bool,
    ) -> BatchResult:
        new_ids = [
            op.spec.transfer_id if isinstance(op, Apply) else op.transfer_id
            for op in operations
            if isinstance(op, Apply | Reverse)
        ]
        async with self._uow() as uow:
            repo = uow.ledger
            existing = await repo.get_transfers(new_ids) if new_ids and not optimistic else {}
            if existing:
                result = BatchResult(
                    transfers=await replayed_transfers(uow, operations, existing), replayed=True
                )
            else:
                # The rules that depend on stored state (funds, holds, reversals...) are the
                # repository's: in PostgreSQL they run next to the data, under row locks.
                accounts = [await self._new_account(uow, wanted) for wanted in opening]
                transfers, replayed = await repo.execute(
                    operations, batch_id=batch_id, now=self._clock(), accounts=accounts
                )
                await uow.commit()
                result = BatchResult(transfers=tuple(transfers), replayed=replayed)
        if result.replayed:
            refuse_posting_non_holds(operations, result.transfers)
        return result


def _operation_name(spec: TransferSpec) -> str:
    """The metrics' name of a single transfer request."""
    return "hold" if spec.pending else "transfer"
