"""Finance reports: journal, trial balance, statement with opening/closing balance, and the
daily reconciliation per currency. Every report is deterministic (same ledger, same bytes):
rows in posting order, canonical number and time formats, SHA-256 alongside.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Protocol

from croupier.game.money import format_minor
from croupier.wallet.core.errors import AccountNotFound, InvalidRequest
from croupier.wallet.core.model import AccountKind, TransferKind

__all__ = [
    "JOURNAL_COLUMNS",
    "BalanceLine",
    "Export",
    "JournalRow",
    "ReportService",
    "ReportSource",
    "journal_csv",
]

JOURNAL_COLUMNS = (
    "posting_id",
    "posted_at",
    "transfer_id",
    "transfer_kind",
    "account_id",
    "account_kind",
    "owner",
    "currency",
    "debit_minor",
    "credit_minor",
    "amount",
    "balance_after_minor",
    "counter_account_id",
    "game",
    "table_id",
    "hand_id",
    "tournament_id",
    "reversal_of",
)

_REFUND_KINDS = (TransferKind.CRASH_REFUND, TransferKind.UNREGISTER_REFUND)


@dataclass(frozen=True, slots=True, kw_only=True)
class JournalRow:
    posting_id: int
    posted_at: datetime
    transfer_id: str
    transfer_kind: str
    account_id: str
    account_kind: str
    owner: str
    currency: str
    exponent: int
    amount_minor: int
    balance_after_minor: int
    counter_account_id: str
    game: str
    table_id: str
    hand_id: str
    tournament_id: str
    reversal_of: str

    def values(self) -> list[Any]:
        return [
            self.posting_id,
            iso(self.posted_at),
            self.transfer_id,
            self.transfer_kind,
            self.account_id,
            self.account_kind,
            self.owner,
            self.currency,
            -self.amount_minor if self.amount_minor < 0 else 0,
            self.amount_minor if self.amount_minor > 0 else 0,
            format_minor(self.amount_minor, self.exponent),
            self.balance_after_minor,
            self.counter_account_id,
            self.game,
            self.table_id,
            self.hand_id,
            self.tournament_id,
            self.reversal_of,
        ]


@dataclass(frozen=True, slots=True, kw_only=True)
class BalanceLine:
    account_id: str
    kind: AccountKind
    owner: str
    currency: str
    balance: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Export:
    content: bytes
    media_type: str
    rows: int

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest()


class ReportSource(Protocol):
    async def journal(self, start: datetime, end: datetime, currency: str) -> list[JournalRow]:
        """Postings with start ≤ posted_at < end, in posting order."""
        ...

    async def balances_at(self, at: datetime, currency: str) -> list[BalanceLine]:
        """Every account's balance from postings with posted_at ≤ at (accounts opened by then)."""
        ...

    async def exponents(self) -> dict[str, int]: ...


def iso(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def journal_csv(rows: Sequence[JournalRow]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(JOURNAL_COLUMNS)
    for row in rows:
        writer.writerow(row.values())
    return buffer.getvalue().encode()


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class ReportService:
    def __init__(
        self,
        source: ReportSource,
        *,
        parquet_writer: Callable[[Sequence[JournalRow]], bytes] | None = None,
    ) -> None:
        self._source = source
        self._parquet = parquet_writer

    async def journal(
        self, start: datetime, end: datetime, *, currency: str = "", fmt: str = "csv"
    ) -> Export:
        if end <= start:
            raise InvalidRequest("the period's end must be after its start")
        rows = await self._source.journal(start, end, currency)
        if fmt == "csv":
            return Export(content=journal_csv(rows), media_type="text/csv", rows=len(rows))
        if fmt == "parquet" and self._parquet is not None:
            return Export(
                content=self._parquet(rows),
                media_type="application/vnd.apache.parquet",
                rows=len(rows),
            )
        raise InvalidRequest(f"format must be csv or parquet, got {fmt!r}")

    async def trial_balance(self, at: datetime, *, currency: str = "") -> list[BalanceLine]:
        return await self._source.balances_at(at, currency)

    async def statement(
        self, account_id: str, start: datetime, end: datetime
    ) -> tuple[int, list[JournalRow], int]:
        """(opening balance at `start`, the account's postings in [start, end), closing)."""
        if end <= start:
            raise InvalidRequest("the period's end must be after its start")
        before = {
            line.account_id: line.balance
            for line in await self._source.balances_at(start - timedelta(microseconds=1), "")
        }
        rows = [r for r in await self._source.journal(start, end, "") if r.account_id == account_id]
        after = {
            line.account_id: line.balance
            for line in await self._source.balances_at(end - timedelta(microseconds=1), "")
        }
        if account_id not in after:
            raise AccountNotFound(f"account {account_id!r} does not exist (or was not open)")
        opening = before.get(account_id, 0)
        closing = after[account_id]
        if opening + sum(r.amount_minor for r in rows) != closing:
            raise AssertionError(f"statement of {account_id} does not add up")
        return opening, rows, closing

    async def reconciliation(self, day: date, currency: str) -> tuple[str, str, bool]:
        """The daily reconciliation report of one currency: (canonical JSON, SHA-256, balanced)."""
        if not currency:
            raise InvalidRequest("currency is required for a reconciliation report")
        start = datetime.combine(day, time(0), tzinfo=UTC)
        end = start + timedelta(days=1)
        rows = await self._source.journal(start, end, currency)
        closing = await self._source.balances_at(end - timedelta(microseconds=1), currency)
        opening = await self._source.balances_at(start - timedelta(microseconds=1), currency)
        exponent = (await self._source.exponents()).get(currency, 0)

        def fmt(value: int) -> str:
            return format_minor(value, exponent)

        by_kind_close: dict[str, int] = {}
        for line in closing:
            by_kind_close[line.kind.value] = by_kind_close.get(line.kind.value, 0) + line.balance
        by_kind_open: dict[str, int] = {}
        for line in opening:
            by_kind_open[line.kind.value] = by_kind_open.get(line.kind.value, 0) + line.balance
        movements: dict[str, int] = {}
        commission: dict[str, list[int]] = {}  # game → [charged, given back]
        refunds: dict[str, dict[str, int]] = {}
        for row in rows:
            if row.amount_minor > 0:
                movements[row.transfer_kind] = (
                    movements.get(row.transfer_kind, 0) + row.amount_minor
                )
            if row.account_kind == AccountKind.HOUSE_COMMISSION.value:
                split = commission.setdefault(row.owner, [0, 0])
                split[0 if row.amount_minor > 0 else 1] += abs(row.amount_minor)
            if row.transfer_kind in _REFUND_KINDS and row.amount_minor > 0:
                entry = refunds.setdefault(row.transfer_kind, {"count": 0, "amount_minor": 0})
                entry["count"] += 1
                entry["amount_minor"] += row.amount_minor
        day_sum = sum(r.amount_minor for r in rows)
        close_sum = sum(line.balance for line in closing)
        negative = sorted(
            line.account_id
            for line in closing
            if not line.kind.may_go_negative and line.balance < 0
        )
        journal = journal_csv(rows)
        balanced = day_sum == 0 and close_sum == 0 and not negative
        report = {
            "currency": currency,
            "day": day.isoformat(),
            "period": {"from": iso(start), "to": iso(end)},
            "postings": len(rows),
            "transfers": len({r.transfer_id for r in rows}),
            "balances_by_account_kind": {
                kind: {
                    "opening_minor": by_kind_open.get(kind, 0),
                    "closing_minor": by_kind_close.get(kind, 0),
                    "closing": fmt(by_kind_close.get(kind, 0)),
                }
                for kind in sorted(set(by_kind_open) | set(by_kind_close))
            },
            "moved_by_transfer_kind_minor": dict(sorted(movements.items())),
            "commission_by_game": {
                game: {
                    "charged_minor": charged,
                    "refunded_minor": refunded,
                    "net_minor": charged - refunded,
                    "net": fmt(charged - refunded),
                }
                for game, (charged, refunded) in sorted(commission.items())
            },
            "refunds": dict(sorted(refunds.items())),
            "zero_sum": {
                "postings_sum_minor": day_sum,
                "closing_balances_sum_minor": close_sum,
                "negative_player_accounts": negative,
                "ok": balanced,
            },
            "journal_csv_sha256": hashlib.sha256(journal).hexdigest(),
        }
        text = canonical_json(report)
        return text, hashlib.sha256(text.encode()).hexdigest(), balanced
