"""PostgreSQL adapter: the ledger repository and its unit of work (asyncpg).

A unit of work holds one pooled connection. A batch of ledger operations is one call of the
SQL function `ledger_execute` (migration 0004): one statement, hence one transaction and one
round trip. It locks the accounts (`FOR NO KEY UPDATE`, in id order: no deadlock between two
batches) and the holds it resolves, checks every rule that depends on stored state and
writes transfers, postings, balances and outbox events; no lock is held while Python runs.
Its errors (SQLSTATE `WL0nn`) become the `core.errors` classes with the function's message.
The schema's constraints and triggers are the second line of defence (amount > 0, currency
match, non-negative player balances, immutable posted transfers).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Self

import asyncpg  # type: ignore[import-untyped]

from croupier.game.money import Currency, CurrencyKind
from croupier.wallet.core.errors import (
    AccountNotFound,
    AlreadyReversed,
    BalanceOutOfRange,
    CurrencyMismatch,
    InsufficientFunds,
    InvalidRequest,
    LedgerError,
    TransferNotFound,
    TransferNotPending,
    UnbalancedSettlement,
)
from croupier.wallet.core.model import (
    Account,
    AccountKind,
    Posting,
    References,
    Transfer,
    TransferKind,
    TransferStatus,
)
from croupier.wallet.service.operations import (
    Apply,
    Operation,
    PostHold,
    Reverse,
    VoidHold,
)
from croupier.wallet.service.ports import DuplicateTransferId, RetryableConflict, StatementLine

__all__ = [
    "OutboxEncoder",
    "PostgresLedger",
    "PostgresUnitOfWork",
    "create_pool",
]

#: Turns one posted transfer and its sequence number on its subject (the debit account's
#: posting count) into (topic, key, serialized Envelope) for the outbox. Sequence 0: the
#: envelope without its sequence field, which `ledger_execute` appends (new transfers).
OutboxEncoder = Callable[[Transfer, int], tuple[str, str, bytes]]

#: SQLSTATEs raised by `ledger_execute` → the error the client gets (with its message).
_ERRORS: dict[str, type[LedgerError]] = {
    "WL001": AccountNotFound,
    "WL002": CurrencyMismatch,
    "WL003": InsufficientFunds,
    "WL004": TransferNotFound,
    "WL005": TransferNotPending,
    "WL006": InvalidRequest,
    "WL007": AlreadyReversed,
    "WL008": UnbalancedSettlement,
}

_EXECUTE_SQL = """SELECT * FROM ledger_execute($1::text[], $2::text[], $3::text[], $4::text[],
    $5::bigint[], $6::text[], $7::text[], $8::boolean[], $9::text[], $10::text[], $11::text[],
    $12::text[], $13::text[], $14::text[], $15::bytea[], $16::text, $17::timestamptz,
    $18::text)"""

_ACCOUNT_COLUMNS = (
    "account_id, kind, currency, owner, posted, debits_pending, credits_pending, posting_count,"
    " opened_at"
)
_TRANSFER_COLUMNS = (
    "transfer_id, debit_account_id, credit_account_id, currency, amount, kind, status, is_hold,"
    " posted_amount, game, table_id, hand_id, tournament_id, metadata::text AS metadata,"
    " coalesce(reversal_of, '') AS reversal_of, created_at, resolved_at"
)


async def create_pool(
    dsn: str, schema: str, *, min_size: int = 2, max_size: int = 10
) -> asyncpg.Pool:
    """A connection pool whose connections work in the wallet's schema."""
    pool = await asyncpg.create_pool(
        dsn,
        min_size=min_size,
        max_size=max_size,
        # Idle connections stay open: no inactivity timer to set and cancel per unit of work.
        max_inactive_connection_lifetime=0,
        server_settings={"search_path": schema, "application_name": "croupier-wallet"},
        reset=_light_reset,
    )
    assert pool is not None
    return pool


async def _light_reset(connection: asyncpg.Connection) -> None:
    """On release: only end a transaction left open. The wallet sets no session state
    (the search path is a connection setting), so asyncpg's full reset (RESET ALL,
    UNLISTEN *, CLOSE ALL, advisory unlock: one more round trip per unit of work) is
    not needed; listeners remove themselves and advisory locks are transaction-scoped."""
    if connection.is_in_transaction():
        await connection.execute("ROLLBACK")


def _account(row: Mapping[str, Any]) -> Account:
    return Account(
        account_id=row["account_id"],
        kind=AccountKind(row["kind"]),
        currency=row["currency"],
        owner=row["owner"],
        posted=row["posted"],
        debits_pending=row["debits_pending"],
        credits_pending=row["credits_pending"],
        posting_count=row["posting_count"],
        opened_at=row["opened_at"],
    )


_INSERT_ACCOUNT_SQL = """INSERT INTO accounts
    (account_id, kind, currency, owner, may_go_negative, opened_at)
    VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account_id) DO NOTHING"""


def _account_row(account: Account) -> tuple[object, ...]:
    return (
        account.account_id,
        account.kind.value,
        account.currency,
        account.owner,
        account.may_go_negative,
        account.opened_at,
    )


def _transfer(row: Mapping[str, Any], prefix: str = "") -> Transfer:
    """A transfer from a row of `transfers`, or from what `ledger_execute` returns (its
    columns prefixed `r_`)."""

    def col(name: str) -> Any:
        return row[prefix + name]

    return Transfer(
        transfer_id=col("transfer_id"),
        debit_account_id=col("debit_account_id"),
        credit_account_id=col("credit_account_id"),
        amount=col("amount"),
        currency=col("currency"),
        kind=TransferKind(col("kind")),
        status=TransferStatus(col("status")),
        is_hold=col("is_hold"),
        posted_amount=col("posted_amount"),
        references=References(
            game=col("game"),
            table_id=col("table_id"),
            hand_id=col("hand_id"),
            tournament_id=col("tournament_id"),
        ),
        metadata=json.loads(col("metadata")),
        reversal_of=col("reversal_of"),
        created_at=col("created_at"),
        resolved_at=col("resolved_at"),
    )


class PostgresLedger:
    """`LedgerRepository` on one connection inside an open transaction."""

    def __init__(
        self,
        connection: asyncpg.Connection,
        *,
        currencies: dict[str, Currency],
        outbox_encoder: OutboxEncoder | None,
    ) -> None:
        self._db = connection
        self._currencies = currencies
        self._encode = outbox_encoder

    async def currency(self, code: str) -> Currency | None:
        if code not in self._currencies:
            row = await self._db.fetchrow(
                "SELECT code, exponent, kind FROM currencies WHERE code = $1", code
            )
            if row is None:
                return None
            self._currencies[code] = Currency(
                code=row["code"], exponent=row["exponent"], kind=CurrencyKind(row["kind"])
            )
        return self._currencies[code]

    async def get_account(self, account_id: str) -> Account | None:
        row = await self._db.fetchrow(
            f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE account_id = $1", account_id
        )
        return None if row is None else _account(row)

    async def add_account(self, account: Account) -> Account:
        await self._db.execute(_INSERT_ACCOUNT_SQL, *_account_row(account))
        stored = await self.get_account(account.account_id)
        assert stored is not None
        return stored

    async def get_transfers(self, transfer_ids: Collection[str]) -> dict[str, Transfer]:
        rows = await self._db.fetch(
            f"SELECT {_TRANSFER_COLUMNS} FROM transfers WHERE transfer_id = ANY($1::text[])",
            list(transfer_ids),
        )
        return {row["transfer_id"]: _transfer(row) for row in rows}

    async def find_transfers(
        self, *, table_id: str = "", tournament_id: str = "", pending_only: bool = False
    ) -> list[Transfer]:
        clauses: list[str] = []
        args: list[str] = []
        if table_id:
            args.append(table_id)
            clauses.append(f"table_id = ${len(args)} AND table_id <> ''")
        if tournament_id:
            args.append(tournament_id)
            clauses.append(f"tournament_id = ${len(args)} AND tournament_id <> ''")
        if pending_only:
            clauses.append("status = 'pending'")
        where = " AND ".join(clauses) or "true"
        rows = await self._db.fetch(
            f"SELECT {_TRANSFER_COLUMNS} FROM transfers WHERE {where} ORDER BY seq", *args
        )
        return [_transfer(row) for row in rows]

    async def execute(
        self,
        operations: Sequence[Operation],
        *,
        batch_id: str,
        now: datetime,
        accounts: Sequence[Account] = (),
    ) -> tuple[list[Transfer], bool]:
        count = len(operations)
        kinds: list[str] = []
        ids: list[str] = []
        debits: list[str | None] = [None] * count
        credits: list[str | None] = [None] * count
        amounts: list[int | None] = [None] * count
        currencies: list[str | None] = [None] * count
        transfer_kinds: list[str | None] = [None] * count
        pending: list[bool | None] = [None] * count
        games: list[str | None] = [None] * count
        tables: list[str | None] = [None] * count
        hands: list[str | None] = [None] * count
        tournaments: list[str | None] = [None] * count
        metadata: list[str | None] = [None] * count
        refs: list[str | None] = [None] * count
        events: list[bytes | None] = [None] * count
        results: list[Transfer | None] = [None] * count
        encode = self._encode
        topic = ""
        optional = False  # any references, metadata or reversal_of at all
        needs_events_after = False  # posts and reversals: events encoded after the call
        for n, op in enumerate(operations):
            if isinstance(op, Apply):
                spec = op.spec
                kinds.append("apply")
                ids.append(spec.transfer_id)
                debits[n] = spec.debit_account_id
                credits[n] = spec.credit_account_id
                amounts[n] = spec.amount
                currencies[n] = spec.currency
                transfer_kinds[n] = spec.kind.value
                pending[n] = spec.pending
                refs_ = spec.references
                if refs_.game or refs_.table_id or refs_.hand_id or refs_.tournament_id:
                    optional = True
                    games[n] = refs_.game
                    tables[n] = refs_.table_id
                    hands[n] = refs_.hand_id
                    tournaments[n] = refs_.tournament_id
                if spec.metadata:
                    optional = True
                    metadata[n] = json.dumps(dict(spec.metadata), sort_keys=True)
                if spec.reversal_of:
                    optional = True
                    refs[n] = spec.reversal_of
                transfer = results[n] = spec.record(now)
                if encode is not None and not spec.pending:
                    topic, _, events[n] = encode(transfer, 0)
            elif isinstance(op, PostHold):
                kinds.append("post")
                ids.append(op.transfer_id)
                amounts[n] = op.amount
                needs_events_after = True
            elif isinstance(op, VoidHold):
                kinds.append("void")
                ids.append(op.transfer_id)
            elif isinstance(op, Reverse):
                kinds.append("reverse")
                ids.append(op.transfer_id)
                transfer_kinds[n] = op.kind.value
                metadata[n] = json.dumps(dict(op.metadata), sort_keys=True)
                refs[n] = op.original_id
                optional = needs_events_after = True
            else:
                kinds.append("expect")
                ids.append(op.account_id)
                amounts[n] = op.posted
        args = (
            kinds, ids, debits, credits, amounts, currencies, transfer_kinds, pending,
            games if optional else None, tables if optional else None,
            hands if optional else None, tournaments if optional else None,
            metadata if optional else None, refs if optional else None,
            events if topic else None, batch_id, now, topic,
        )  # fmt: skip
        events_after = encode if needs_events_after else None
        try:
            if events_after is not None or accounts:
                # New accounts, and the events of posted holds and reversals (encoded from
                # what the call returns), are written in the batch's transaction.
                async with self._db.transaction():
                    if accounts:
                        await self._db.executemany(
                            _INSERT_ACCOUNT_SQL, [_account_row(a) for a in accounts]
                        )
                    rows = await self._db.fetch(_EXECUTE_SQL, *args)
                    if events_after is not None:
                        await self._write_events(rows, events_after)
            else:
                rows = await self._db.fetch(_EXECUTE_SQL, *args)
        except asyncpg.PostgresError as error:
            raise _ledger_error(error) from error
        replayed = False
        for row in rows:
            if row["r_op"] is not None:
                results[row["r_op"] - 1] = _transfer(row, "r_")
            replayed = replayed or row["r_replayed"]
        return [t for t in results if t is not None], replayed

    async def _write_events(self, rows: Sequence[Mapping[str, Any]], encode: OutboxEncoder) -> None:
        outbox = [
            encode(_transfer(row, "r_"), row["r_sequence"])
            for row in rows
            if row["r_status"] == "posted" and row["r_sequence"] is not None
        ]
        if outbox:
            await self._db.executemany(
                "INSERT INTO outbox (topic, key, envelope) VALUES ($1, $2, $3)", outbox
            )

    async def statement(
        self, account_id: str, *, after_posting_id: int, limit: int
    ) -> list[StatementLine]:
        rows = await self._db.fetch(
            """SELECT p.posting_id, p.transfer_id, p.account_id, p.currency, p.amount,
                      p.balance_after, p.posted_at, t.kind,
                      CASE WHEN p.amount > 0 THEN t.debit_account_id
                           ELSE t.credit_account_id END AS counter_account_id
               FROM postings p JOIN transfers t USING (transfer_id)
               WHERE p.account_id = $1 AND p.posting_id > $2
               ORDER BY p.posting_id LIMIT $3""",
            account_id,
            after_posting_id,
            limit,
        )
        return [
            StatementLine(
                posting_id=row["posting_id"],
                posting=Posting(
                    transfer_id=row["transfer_id"],
                    account_id=row["account_id"],
                    currency=row["currency"],
                    amount=row["amount"],
                    balance_after=row["balance_after"],
                    posted_at=row["posted_at"],
                ),
                kind=TransferKind(row["kind"]),
                counter_account_id=row["counter_account_id"],
            )
            for row in rows
        ]


class PostgresUnitOfWork:
    """One pooled connection: `async with uow: …; await uow.commit()`.

    Every write of the repository is atomic by itself (`execute` is one statement, or its
    own transaction), so the unit of work opens no transaction of its own: no BEGIN/COMMIT
    round trips, and `commit()` only marks the work done.
    """

    ledger: PostgresLedger

    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        currencies: dict[str, Currency],
        outbox_encoder: OutboxEncoder | None = None,
    ) -> None:
        self._pool = pool
        self._currencies = currencies
        self._encoder = outbox_encoder
        self._connection: asyncpg.Connection | None = None

    async def __aenter__(self) -> Self:
        self._connection = await self._pool.acquire()
        self.ledger = PostgresLedger(
            self._connection,
            currencies=self._currencies,
            outbox_encoder=self._encoder,
        )
        return self

    async def commit(self) -> None:
        """Nothing to do: each write committed when it ran (see the class docstring)."""

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._connection is not None
        try:
            await self._pool.release(self._connection)
        finally:
            self._connection = None

    @staticmethod
    def factory(
        pool: asyncpg.Pool,
        *,
        outbox_encoder: OutboxEncoder | None = None,
    ) -> Callable[[], PostgresUnitOfWork]:
        currencies: dict[str, Currency] = {}

        def make() -> PostgresUnitOfWork:
            return PostgresUnitOfWork(
                pool,
                currencies=currencies,
                outbox_encoder=outbox_encoder,
            )

        return make


def _ledger_error(error: asyncpg.PostgresError) -> Exception:
    """What a database error means for the caller."""
    domain = _ERRORS.get(getattr(error, "sqlstate", "") or "")
    if domain is not None:
        return domain(error.message)
    if isinstance(error, asyncpg.NumericValueOutOfRangeError):
        # Amounts are bounded before the call (MAX_AMOUNT), so only a sum overflows:
        # a balance, a pending total or a posting count past bigint.
        return BalanceOutOfRange()
    if isinstance(error, asyncpg.UniqueViolationError):
        return DuplicateTransferId(str(error))
    if isinstance(error, asyncpg.DeadlockDetectedError | asyncpg.SerializationError):
        return RetryableConflict(str(error))
    if isinstance(error, asyncpg.CheckViolationError):
        if error.constraint_name == "balance_not_negative":
            return InsufficientFunds(
                "the database refused a balance below zero (concurrent change); retry"
            )
        return LedgerError(f"the database refused the change: {error}")
    unexpected: Exception = error
    return unexpected
