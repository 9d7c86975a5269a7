"""PostgreSQL adapter: the ledger repository and its unit of work (asyncpg).

Each unit of work is one READ COMMITTED transaction on one pooled connection. Accounts
are locked with `SELECT … FOR UPDATE` in id order (no deadlock between two batches), so
balance checks in the domain see the latest committed balances. The schema's constraints
and triggers are the second line of defence (amount > 0, currency match, non-negative
player balances, immutable posted transfers).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from types import TracebackType
from typing import Any, Self

import asyncpg  # type: ignore[import-untyped]

from croupier.wallet.core.errors import InsufficientFunds, LedgerError
from croupier.wallet.core.ledger import LedgerSlice
from croupier.wallet.core.model import (
    Account,
    AccountKind,
    Posting,
    References,
    Transfer,
    TransferKind,
    TransferStatus,
)
from croupier.wallet.core.money import Currency, CurrencyKind
from croupier.wallet.service.ports import DuplicateTransferId, RetryableConflict, StatementLine

__all__ = [
    "OutboxEncoder",
    "PostgresLedger",
    "PostgresUnitOfWork",
    "create_pool",
]

#: Turns one posted transfer and its sequence number on its subject (the debit account's
#: posting count) into (topic, key, serialized Envelope) for the outbox.
OutboxEncoder = Callable[[Transfer, int], tuple[str, str, bytes]]

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


def _transfer(row: Mapping[str, Any]) -> Transfer:
    return Transfer(
        transfer_id=row["transfer_id"],
        debit_account_id=row["debit_account_id"],
        credit_account_id=row["credit_account_id"],
        amount=row["amount"],
        currency=row["currency"],
        kind=TransferKind(row["kind"]),
        status=TransferStatus(row["status"]),
        is_hold=row["is_hold"],
        posted_amount=row["posted_amount"],
        references=References(
            game=row["game"],
            table_id=row["table_id"],
            hand_id=row["hand_id"],
            tournament_id=row["tournament_id"],
        ),
        metadata=json.loads(row["metadata"]),
        reversal_of=row["reversal_of"],
        created_at=row["created_at"],
        resolved_at=row["resolved_at"],
    )


_SAVE_SQL = """
WITH new_transfers AS (
    INSERT INTO transfers (transfer_id, debit_account_id, credit_account_id, currency, amount,
                           kind, status, is_hold, posted_amount, game, table_id, hand_id,
                           tournament_id, metadata, batch_id, reversal_of, created_at,
                           resolved_at)
    SELECT i, d, c, cur, a, k, s, h, pa, g, tb, hd, tr, m::jsonb, $15, nullif(rv, ''), ca, ra
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[],
                $7::text[], $8::boolean[], $9::bigint[], $10::text[], $11::text[], $12::text[],
                $13::text[], $14::text[], $16::text[], $17::timestamptz[], $18::timestamptz[])
         AS u(i, d, c, cur, a, k, s, h, pa, g, tb, hd, tr, m, rv, ca, ra)
), resolved AS (
    UPDATE transfers t SET status = u.s, posted_amount = u.pa, resolved_at = u.ra
    FROM unnest($19::text[], $20::text[], $21::bigint[], $22::timestamptz[]) AS u(i, s, pa, ra)
    WHERE t.transfer_id = u.i
), new_postings AS (
    INSERT INTO postings (transfer_id, account_id, currency, amount, balance_after, posted_at)
    SELECT * FROM unnest($23::text[], $24::text[], $25::text[], $26::bigint[], $27::bigint[],
                         $28::timestamptz[])
), balances AS (
    UPDATE accounts a SET posted = u.p, debits_pending = u.dp, credits_pending = u.cp,
                          posting_count = u.n
    FROM unnest($29::text[], $30::bigint[], $31::bigint[], $32::bigint[], $33::bigint[])
         AS u(i, p, dp, cp, n)
    WHERE a.account_id = u.i
), events AS (
    INSERT INTO outbox (topic, key, envelope)
    SELECT * FROM unnest($34::text[], $35::text[], $36::bytea[])
    RETURNING 1
)
SELECT pg_notify($37, '') FROM (SELECT 1 FROM events LIMIT 1) AS any_event WHERE $37 <> ''
"""


class PostgresLedger:
    """`LedgerRepository` on one connection inside an open transaction."""

    def __init__(
        self,
        connection: asyncpg.Connection,
        *,
        currencies: dict[str, Currency],
        outbox_encoder: OutboxEncoder | None,
        notify_channel: str = "",
    ) -> None:
        self._db = connection
        self._currencies = currencies
        self._encode = outbox_encoder
        self._notify_channel = notify_channel

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
        await self._db.execute(
            """INSERT INTO accounts (account_id, kind, currency, owner, may_go_negative, opened_at)
               VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account_id) DO NOTHING""",
            account.account_id,
            account.kind.value,
            account.currency,
            account.owner,
            account.may_go_negative,
            account.opened_at,
        )
        stored = await self.get_account(account.account_id)
        assert stored is not None
        return stored

    async def lock_accounts(self, account_ids: Collection[str]) -> LedgerSlice:
        rows = await self._db.fetch(
            f"""SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE account_id = ANY($1::text[])
                ORDER BY account_id FOR UPDATE""",
            sorted(account_ids),
        )
        return LedgerSlice(_account(row) for row in rows)

    async def get_transfers(
        self, transfer_ids: Collection[str], *, lock: bool = False
    ) -> dict[str, Transfer]:
        suffix = " ORDER BY transfer_id FOR UPDATE" if lock else ""
        rows = await self._db.fetch(
            f"SELECT {_TRANSFER_COLUMNS} FROM transfers"
            f" WHERE transfer_id = ANY($1::text[]){suffix}",
            list(transfer_ids),
        )
        return {row["transfer_id"]: _transfer(row) for row in rows}

    async def reversals_of(self, transfer_ids: Collection[str]) -> dict[str, str]:
        rows = await self._db.fetch(
            "SELECT reversal_of, transfer_id FROM transfers WHERE reversal_of = ANY($1::text[])",
            list(transfer_ids),
        )
        return {row["reversal_of"]: row["transfer_id"] for row in rows}

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

    async def save(self, ledger: LedgerSlice, *, batch_id: str) -> None:
        try:
            await self._save(ledger, batch_id)
        except asyncpg.UniqueViolationError as error:
            raise DuplicateTransferId(str(error)) from error
        except (asyncpg.DeadlockDetectedError, asyncpg.SerializationError) as error:
            raise RetryableConflict(str(error)) from error
        except asyncpg.CheckViolationError as error:
            if error.constraint_name == "balance_not_negative":
                raise InsufficientFunds(
                    "the database refused a balance below zero (concurrent change); retry"
                ) from error
            raise LedgerError(f"the database refused the change: {error}") from error

    async def _save(self, ledger: LedgerSlice, batch_id: str) -> None:
        """Everything in one statement (one round trip): data-modifying CTEs."""
        created = {t.transfer_id: t for t in ledger.new_transfers}
        resolved = []
        for transfer in ledger.resolved_transfers:
            if transfer.transfer_id in created:
                # Held and resolved in the same batch: insert it in its final state.
                created[transfer.transfer_id] = transfer
            else:
                resolved.append(transfer)
        new = list(created.values())
        postings = ledger.postings
        changed = ledger.changed_accounts
        outbox: list[tuple[str, str, bytes]] = []
        if self._encode is not None:
            sequence = {(p.transfer_id, p.account_id): p.sequence for p in postings}
            outbox = [
                self._encode(t, sequence[t.transfer_id, t.debit_account_id])
                for t in ledger.posted_transfers
            ]
        await self._db.execute(
            _SAVE_SQL,
            [t.transfer_id for t in new],
            [t.debit_account_id for t in new],
            [t.credit_account_id for t in new],
            [t.currency for t in new],
            [t.amount for t in new],
            [t.kind.value for t in new],
            [t.status.value for t in new],
            [t.is_hold for t in new],
            [t.posted_amount for t in new],
            [t.references.game for t in new],
            [t.references.table_id for t in new],
            [t.references.hand_id for t in new],
            [t.references.tournament_id for t in new],
            [json.dumps(dict(t.metadata), sort_keys=True) for t in new],
            batch_id,
            [t.reversal_of for t in new],
            [t.created_at for t in new],
            [t.resolved_at for t in new],
            [t.transfer_id for t in resolved],
            [t.status.value for t in resolved],
            [t.posted_amount for t in resolved],
            [t.resolved_at for t in resolved],
            [p.transfer_id for p in postings],
            [p.account_id for p in postings],
            [p.currency for p in postings],
            [p.amount for p in postings],
            [p.balance_after for p in postings],
            [p.posted_at for p in postings],
            [a.account_id for a in changed],
            [a.posted for a in changed],
            [a.debits_pending for a in changed],
            [a.credits_pending for a in changed],
            [a.posting_count for a in changed],
            [o[0] for o in outbox],
            [o[1] for o in outbox],
            [o[2] for o in outbox],
            self._notify_channel,
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
    """One transaction: `async with uow: …; await uow.commit()`; rolls back otherwise."""

    ledger: PostgresLedger

    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        currencies: dict[str, Currency],
        outbox_encoder: OutboxEncoder | None = None,
        notify_channel: str = "",
    ) -> None:
        self._pool = pool
        self._currencies = currencies
        self._encoder = outbox_encoder
        self._notify_channel = notify_channel
        self._connection: asyncpg.Connection | None = None
        self._transaction: Any = None
        self._committed = False

    async def __aenter__(self) -> Self:
        self._connection = await self._pool.acquire()
        try:
            self._transaction = self._connection.transaction()
            await self._transaction.start()
        except BaseException:
            await self._pool.release(self._connection)
            raise
        self.ledger = PostgresLedger(
            self._connection,
            currencies=self._currencies,
            outbox_encoder=self._encoder,
            notify_channel=self._notify_channel,
        )
        return self

    async def commit(self) -> None:
        try:
            await self._transaction.commit()
        except (asyncpg.DeadlockDetectedError, asyncpg.SerializationError) as error:
            raise RetryableConflict(str(error)) from error
        self._committed = True

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._connection is not None
        try:
            if not self._committed:
                await self._transaction.rollback()
        finally:
            await self._pool.release(self._connection)
            self._connection = None

    @staticmethod
    def factory(
        pool: asyncpg.Pool,
        *,
        outbox_encoder: OutboxEncoder | None = None,
        notify_channel: str = "",
    ) -> Callable[[], PostgresUnitOfWork]:
        currencies: dict[str, Currency] = {}

        def make() -> PostgresUnitOfWork:
            return PostgresUnitOfWork(
                pool,
                currencies=currencies,
                outbox_encoder=outbox_encoder,
                notify_channel=notify_channel,
            )

        return make
