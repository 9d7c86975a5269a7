"""Whole-ledger invariant checks, run by tests after every scenario, by the benchmark and by
the daily reconciliation report."""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg  # type: ignore[import-untyped]

__all__ = ["LedgerAudit", "audit_ledger"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LedgerAudit:
    """Every list empty means the books are right."""

    #: currency → Σ posted balances, for currencies where it is not 0.
    nonzero_currencies: dict[str, int]
    #: currency → (Σ debits pending, Σ credits pending) where they differ.
    unbalanced_pending: dict[str, tuple[int, int]]
    #: non-house accounts whose available balance is below zero.
    negative_accounts: list[str]
    #: accounts whose posted balance differs from the sum of their postings.
    drifted_accounts: list[str]
    #: transfers whose postings do not add up to zero (or have ≠ 2 lines).
    unbalanced_transfers: list[str]
    #: transfers and postings that name an account (in their currency) or a transfer that
    #: does not exist. ledger_execute() checks this as it writes; the schema has no foreign
    #: keys for it (migration 0005).
    dangling_references: list[str]
    transfers: int
    postings: int

    @property
    def ok(self) -> bool:
        return not (
            self.nonzero_currencies
            or self.unbalanced_pending
            or self.negative_accounts
            or self.drifted_accounts
            or self.unbalanced_transfers
            or self.dangling_references
        )


async def audit_ledger(connection: asyncpg.Connection) -> LedgerAudit:
    """Check the invariants of docs/architecture.md §4 over the whole ledger (one snapshot)."""
    async with connection.transaction(isolation="repeatable_read", readonly=True):
        sums = await connection.fetch(
            """SELECT currency, sum(posted)::bigint AS posted,
                      sum(debits_pending)::bigint AS dp, sum(credits_pending)::bigint AS cp
               FROM accounts GROUP BY currency ORDER BY currency"""
        )
        negative = await connection.fetch(
            """SELECT account_id FROM accounts
               WHERE NOT may_go_negative AND posted - debits_pending < 0 ORDER BY account_id"""
        )
        drifted = await connection.fetch(
            """SELECT a.account_id FROM accounts a
               LEFT JOIN (SELECT account_id, sum(amount)::bigint AS s FROM postings
                          GROUP BY account_id) p USING (account_id)
               WHERE a.posted <> coalesce(p.s, 0) ORDER BY a.account_id"""
        )
        unbalanced = await connection.fetch(
            """SELECT t.transfer_id FROM transfers t
               LEFT JOIN (SELECT transfer_id, sum(amount)::bigint AS s, count(*) AS n,
                                 max(amount) AS credited
                          FROM postings GROUP BY transfer_id) p USING (transfer_id)
               WHERE (t.status = 'posted'
                      AND (p.n IS DISTINCT FROM 2 OR p.s <> 0
                           OR p.credited IS DISTINCT FROM t.posted_amount))
                  OR (t.status <> 'posted' AND p.n IS NOT NULL)
               ORDER BY t.transfer_id"""
        )
        dangling = await connection.fetch(
            """SELECT 'transfer ' || t.transfer_id AS what FROM transfers t
               WHERE NOT EXISTS (SELECT FROM accounts a WHERE a.account_id = t.debit_account_id
                                                        AND a.currency = t.currency)
                  OR NOT EXISTS (SELECT FROM accounts a WHERE a.account_id = t.credit_account_id
                                                        AND a.currency = t.currency)
               UNION ALL
               SELECT 'posting ' || p.posting_id FROM postings p
               WHERE NOT EXISTS (SELECT FROM accounts a WHERE a.account_id = p.account_id
                                                        AND a.currency = p.currency)
                  OR NOT EXISTS (SELECT FROM transfers t WHERE t.transfer_id = p.transfer_id
                                                         AND t.currency = p.currency)
               ORDER BY 1"""
        )
        transfers = await connection.fetchval("SELECT count(*) FROM transfers")
        postings = await connection.fetchval("SELECT count(*) FROM postings")
    return LedgerAudit(
        nonzero_currencies={r["currency"]: r["posted"] for r in sums if r["posted"] != 0},
        unbalanced_pending={r["currency"]: (r["dp"], r["cp"]) for r in sums if r["dp"] != r["cp"]},
        negative_accounts=[r["account_id"] for r in negative],
        drifted_accounts=[r["account_id"] for r in drifted],
        unbalanced_transfers=[r["transfer_id"] for r in unbalanced],
        dangling_references=[r["what"] for r in dangling],
        transfers=int(transfers),
        postings=int(postings),
    )
