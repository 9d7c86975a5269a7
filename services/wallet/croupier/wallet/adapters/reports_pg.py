"""PostgreSQL reads for the finance reports (one REPEATABLE READ snapshot per query)."""

from __future__ import annotations

from datetime import datetime

import asyncpg  # type: ignore[import-untyped]

from croupier.wallet.core.model import AccountKind
from croupier.wallet.service.reports import BalanceLine, JournalRow

__all__ = ["PostgresReportSource"]


class PostgresReportSource:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def journal(self, start: datetime, end: datetime, currency: str) -> list[JournalRow]:
        async with self._pool.acquire() as db:
            rows = await db.fetch(
                """SELECT p.posting_id, p.posted_at, p.transfer_id, t.kind AS transfer_kind,
                          p.account_id, a.kind AS account_kind, a.owner, p.currency, c.exponent,
                          p.amount, p.balance_after,
                          CASE WHEN p.amount > 0 THEN t.debit_account_id
                               ELSE t.credit_account_id END AS counter_account_id,
                          t.game, t.table_id, t.hand_id, t.tournament_id,
                          coalesce(t.reversal_of, '') AS reversal_of
                   FROM postings p
                   JOIN transfers t USING (transfer_id)
                   JOIN accounts a ON a.account_id = p.account_id
                   JOIN currencies c ON c.code = p.currency
                   WHERE p.posted_at >= $1 AND p.posted_at < $2
                     AND ($3 = '' OR p.currency = $3)
                   ORDER BY p.posting_id""",
                start,
                end,
                currency,
            )
        return [
            JournalRow(
                posting_id=r["posting_id"],
                posted_at=r["posted_at"],
                transfer_id=r["transfer_id"],
                transfer_kind=r["transfer_kind"],
                account_id=r["account_id"],
                account_kind=r["account_kind"],
                owner=r["owner"],
                currency=r["currency"],
                exponent=r["exponent"],
                amount_minor=r["amount"],
                balance_after_minor=r["balance_after"],
                counter_account_id=r["counter_account_id"],
                game=r["game"],
                table_id=r["table_id"],
                hand_id=r["hand_id"],
                tournament_id=r["tournament_id"],
                reversal_of=r["reversal_of"],
            )
            for r in rows
        ]

    async def balances_at(self, at: datetime, currency: str) -> list[BalanceLine]:
        async with self._pool.acquire() as db:
            rows = await db.fetch(
                """SELECT a.account_id, a.kind, a.owner, a.currency,
                          coalesce(sum(p.amount), 0)::bigint AS balance
                   FROM accounts a
                   LEFT JOIN postings p ON p.account_id = a.account_id AND p.posted_at <= $1
                   WHERE a.opened_at <= $1 AND ($2 = '' OR a.currency = $2)
                   GROUP BY a.account_id, a.kind, a.owner, a.currency
                   ORDER BY a.currency, a.account_id""",
                at,
                currency,
            )
        return [
            BalanceLine(
                account_id=r["account_id"],
                kind=AccountKind(r["kind"]),
                owner=r["owner"],
                currency=r["currency"],
                balance=r["balance"],
            )
            for r in rows
        ]

    async def exponents(self) -> dict[str, int]:
        async with self._pool.acquire() as db:
            rows = await db.fetch("SELECT code, exponent FROM currencies")
        return {r["code"]: r["exponent"] for r in rows}
