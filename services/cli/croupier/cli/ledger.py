"""`croupier ledger …`: the wallet's database commands and finance exports.

    croupier ledger migrate
    croupier ledger audit
    croupier ledger journal --from 2026-11-29 --to 2026-11-30 [--currency USD]
                            [--format csv|parquet] [--out FILE]
    croupier ledger trial-balance [--at 2026-11-30T00:00:00Z] [--currency USD]
    croupier ledger statement ACCOUNT_ID --from 2026-11-01 --to 2026-12-01
    croupier ledger reconcile --day 2026-11-29 --currency USD [--out FILE]

The database comes from --dsn / $CROUPIER_POSTGRES_DSN and the schema from --schema /
$CROUPIER_WALLET_SCHEMA (default "wallet"). Exports are byte-identical when repeated; the
SHA-256 of what was written is printed on stderr. Exit codes: 0 ok, 1 the ledger's
invariants are broken (audit, reconcile), 2 bad arguments or no database (one line on
stderr: a malformed DSN, an unreachable server, a schema without a ledger, an unknown
currency).

Dates and times are ISO 8601: a day (2026-11-29, its midnight) or a moment
(2026-11-29T12:00:00Z, 2026-11-29T14:00:00+02:00); without an offset they are UTC.
Periods include their start and exclude their end.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
from datetime import UTC, date, datetime
from typing import Any

__all__ = ["register"]


class _Refused(Exception):
    """A request the ledger cannot answer as asked (exit 2); the message says why."""


_PERIOD = "periods include --from and exclude --to"
_MOMENT = "ISO day or time, UTC unless an offset is given (2026-11-29, 2026-11-29T12:00:00Z)"


async def _check_ledger(pool: Any, schema: str, currency: str) -> None:
    """Refuse a schema the wallet never migrated and a currency the ledger does not know
    (it would answer an empty, balanced report)."""
    async with pool.acquire() as connection:
        if await connection.fetchval("SELECT to_regclass('currencies')") is None:
            raise _Refused(
                f"schema {schema!r} holds no wallet ledger (check --schema, or run "
                "`croupier ledger migrate` on a new database)"
            )
        known = [
            r["code"] for r in await connection.fetch("SELECT code FROM currencies ORDER BY code")
        ]
    if currency and currency not in known:
        raise _Refused(f"unknown currency {currency!r}: the ledger knows {', '.join(known)}")


def _moment(text: str) -> datetime:
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO date or time: {text!r}") from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a YYYY-MM-DD day: {text!r}") from None


def _write(content: bytes, out: str) -> None:
    if out and out != "-":
        with open(out, "wb") as handle:
            handle.write(content)
    else:
        sys.stdout.buffer.write(content)
        sys.stdout.flush()
    print(f"sha256 {hashlib.sha256(content).hexdigest()}", file=sys.stderr)


async def _run(args: argparse.Namespace) -> int:
    import asyncpg  # type: ignore[import-untyped]

    from croupier.game.money import format_minor
    from croupier.wallet.adapters.audit import audit_ledger
    from croupier.wallet.adapters.parquet import journal_parquet
    from croupier.wallet.adapters.postgres import create_pool
    from croupier.wallet.adapters.reports_pg import PostgresReportSource
    from croupier.wallet.bootstrap import migrate_ledger
    from croupier.wallet.core.errors import LedgerError
    from croupier.wallet.service.reports import JOURNAL_COLUMNS, ReportService, canonical_json

    if args.action == "migrate":
        connection = await asyncpg.connect(args.dsn)
        try:
            applied = await migrate_ledger(connection, args.schema)
        finally:
            await connection.close()
        print(f"applied migrations: {applied or 'none (up to date)'}")
        return 0
    pool = await create_pool(args.dsn, args.schema, min_size=1, max_size=2)
    try:
        await _check_ledger(pool, args.schema, getattr(args, "currency", ""))
        reports = ReportService(PostgresReportSource(pool), parquet_writer=journal_parquet)
        try:
            if args.action == "audit":
                async with pool.acquire() as connection:
                    audit = await audit_ledger(connection)
                print(json.dumps(_plain(audit), indent=2, sort_keys=True))
                return 0 if audit.ok else 1
            if args.action == "journal":
                export = await reports.journal(
                    args.start, args.end, currency=args.currency, fmt=args.format
                )
                _write(export.content, args.out)
                print(f"{export.rows} postings", file=sys.stderr)
                return 0
            if args.action == "trial-balance":
                at = args.at or datetime.now(UTC)
                lines = await reports.trial_balance(at, currency=args.currency)
                exponents = await PostgresReportSource(pool).exponents()
                totals: dict[str, int] = {}
                rows: list[dict[str, Any]] = []
                for line in lines:
                    totals[line.currency] = totals.get(line.currency, 0) + line.balance
                    rows.append(
                        {
                            "account_id": line.account_id,
                            "kind": line.kind.value,
                            "currency": line.currency,
                            "balance_minor": line.balance,
                            "balance": format_minor(line.balance, exponents[line.currency]),
                        }
                    )
                document = {"at": at.isoformat(), "accounts": rows, "totals_minor": totals}
                _write((canonical_json(document) + "\n").encode(), args.out)
                return 0 if all(total == 0 for total in totals.values()) else 1
            if args.action == "statement":
                opening, postings, closing = await reports.statement(
                    args.account_id, args.start, args.end
                )
                document = {
                    "account_id": args.account_id,
                    "from": args.start.isoformat(),
                    "to": args.end.isoformat(),
                    "opening_minor": opening,
                    "closing_minor": closing,
                    "lines": [
                        dict(zip(JOURNAL_COLUMNS, row.values(), strict=True)) for row in postings
                    ],
                }
                _write((canonical_json(document) + "\n").encode(), args.out)
                return 0
            if args.action == "reconcile":
                text, _, balanced = await reports.reconciliation(args.day, args.currency)
                _write((text + "\n").encode(), args.out)
                return 0 if balanced else 1
        except LedgerError as error:
            print(f"croupier ledger {args.action}: {error.message}", file=sys.stderr)
            return 2
    finally:
        await pool.close()
    return 2


def _plain(value: Any) -> Any:
    import dataclasses

    return {
        **dataclasses.asdict(value),
        "ok": value.ok,
    }


def _handle(args: argparse.Namespace) -> int:
    args.dsn = args.dsn or os.environ.get("CROUPIER_POSTGRES_DSN", "")
    args.schema = args.schema or os.environ.get("CROUPIER_WALLET_SCHEMA", "wallet")
    if not args.dsn:
        print("croupier ledger: set --dsn or CROUPIER_POSTGRES_DSN", file=sys.stderr)
        return 2
    import asyncpg

    try:
        code: int = asyncio.run(_run(args))
    except _Refused as error:
        print(f"croupier ledger {args.action}: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # refused, unknown host, timed out
        print(f"croupier ledger: cannot reach the database: {error}", file=sys.stderr)
        return 2
    except (asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        # A malformed DSN (ClientConfigurationError is an InterfaceError),
        # an unknown database or user, a refused password: asyncpg's message names it.
        print(f"croupier ledger: cannot use the database: {error}", file=sys.stderr)
        return 2
    return code


def _add_period(parser: argparse.ArgumentParser) -> None:
    """--from (included) and --to (excluded): the period of a journal or a statement."""
    parser.add_argument(
        "--from",
        dest="start",
        type=_moment,
        required=True,
        metavar="WHEN",
        help=f"first moment, included: {_MOMENT}",
    )
    parser.add_argument(
        "--to",
        dest="end",
        type=_moment,
        required=True,
        metavar="WHEN",
        help=f"end, excluded: {_MOMENT}",
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "ledger",
        help="the wallet's books: migrations, audit, journal, trial balance, statements, "
        "daily reconciliation",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--dsn",
        default="",
        help="the wallet's PostgreSQL, e.g. postgresql://user:password@host:5432/croupier "
        "(default $CROUPIER_POSTGRES_DSN)",
    )
    parser.add_argument(
        "--schema",
        default="",
        help='the schema holding the ledger (default $CROUPIER_WALLET_SCHEMA, else "wallet")',
    )
    actions = parser.add_subparsers(dest="action", required=True)
    actions.add_parser("migrate", help="apply the wallet's pending schema migrations")
    actions.add_parser("audit", help="check the ledger's invariants (zero-sum, no overdraft)")
    currency_help = "only this currency (a code the ledger knows, e.g. USD); default all"
    out_help = "write to FILE instead of stdout (- is stdout)"
    journal = actions.add_parser(
        "journal", help=f"every posting of a period, one row each ({_PERIOD})"
    )
    _add_period(journal)
    journal.add_argument("--currency", default="", help=currency_help)
    journal.add_argument(
        "--format", choices=("csv", "parquet"), default="csv", help="file format (default csv)"
    )
    journal.add_argument("--out", default="-", metavar="FILE", help=out_help)
    trial = actions.add_parser("trial-balance", help="every account's balance at a moment")
    trial.add_argument(
        "--at",
        type=_moment,
        default=None,
        metavar="WHEN",
        help=f"balances including every posting up to this moment, included: {_MOMENT}; "
        "default now",
    )
    trial.add_argument("--currency", default="", help=currency_help)
    trial.add_argument("--out", default="-", metavar="FILE", help=out_help)
    statement = actions.add_parser(
        "statement", help=f"one account: opening, postings, closing ({_PERIOD})"
    )
    statement.add_argument("account_id", help="the account's id (as the wallet's API gives it)")
    _add_period(statement)
    statement.add_argument("--out", default="-", metavar="FILE", help=out_help)
    reconcile = actions.add_parser("reconcile", help="daily reconciliation report of a currency")
    reconcile.add_argument(
        "--day", type=_day, required=True, help="the day, YYYY-MM-DD, from 00:00 to 24:00 UTC"
    )
    reconcile.add_argument("--currency", required=True, help="a currency code the ledger knows")
    reconcile.add_argument("--out", default="-", metavar="FILE", help=out_help)
    parser.set_defaults(handler=_handle)
