"""`croupier ledger …` against a real PostgreSQL: exports byte-identical when repeated."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]
import pyarrow.parquet as pq

from croupier.wallet.core.model import AccountKind, TransferKind, TransferSpec
from croupier.wallet.core.settlement import backgammon_rule
from croupier.wallet.service.games import GameMoney
from croupier.wallet.service.ledger import LedgerService

CROUPIER = Path(sys.executable).parent / "croupier"


async def scenario(service: LedgerService) -> None:
    """A day of play: deposits, a backgammon game (vector 1), a tournament that crashes."""
    money = GameMoney(service)
    house = await service.open_account(AccountKind.HOUSE_CLEARING, "house", "USD")
    for player in ("amnon", "micha", "noa"):
        account = await service.open_account(AccountKind.PLAYER_CASH, player, "USD")
        await service.transfer(TransferSpec(
            transfer_id=f"deposit-{player}", debit_account_id=house.account_id,
            credit_account_id=account.account_id, amount=50_000, currency="USD",
            kind=TransferKind.DEPOSIT))  # fmt: skip
    for player in ("amnon", "micha"):
        await money.hold_stake(transfer_id=f"bg1:{player}", player=player, game="backgammon",
                               table_id="bg1", currency="USD", amount=10_000)  # fmt: skip
    await money.settle_game(settlement_id="bg1:1", game="backgammon", table_id="bg1",
                            currency="USD", holds={"amnon": "bg1:amnon", "micha": "bg1:micha"},
                            deltas={"amnon": 1000, "micha": -1000},
                            commission=backgammon_rule)  # fmt: skip
    for player in ("micha", "noa"):
        await money.register(entry_id=f"T:{player}", tournament_id="T", game="rummy",
                             player=player, currency="USD", buy_in=1000, fee=100)  # fmt: skip
    await money.crash_refund_tournament(tournament_id="T", game="rummy", currency="USD")


def ledger(schema: str, dsn: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [str(CROUPIER), "ledger", "--dsn", dsn, "--schema", schema, *args],
        capture_output=True, timeout=60, check=False,
    )  # fmt: skip


async def test_cli_exports_are_byte_identical_and_reconcile(
    ledger_service: LedgerService,
    wallet_pool: tuple[asyncpg.Pool, str],
    wallet_dsn: str,
    tmp_path: Path,
) -> None:
    await scenario(ledger_service)
    _, schema = wallet_pool
    period = ["--from", "2026-11-29", "--to", "2026-11-30"]
    first = ledger(schema, wallet_dsn, "journal", *period)
    second = ledger(schema, wallet_dsn, "journal", *period)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert f"sha256 {hashlib.sha256(first.stdout).hexdigest()}".encode() in first.stderr
    lines = first.stdout.decode().splitlines()
    assert lines[0].startswith("posting_id,posted_at,transfer_id,transfer_kind,account_id")
    for name in ("a.parquet", "b.parquet"):
        done = ledger(schema, wallet_dsn, "journal", *period, "--format", "parquet",
                      "--out", str(tmp_path / name))  # fmt: skip
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    assert pq.read_table(tmp_path / "a.parquet").num_rows == len(lines) - 1

    report = ledger(schema, wallet_dsn, "reconcile", "--day", "2026-11-29", "--currency", "USD")
    assert report.returncode == 0, report.stderr
    assert report.stdout == ledger(schema, wallet_dsn, "reconcile", "--day", "2026-11-29",
                                   "--currency", "USD").stdout  # fmt: skip
    data = json.loads(report.stdout)
    assert data["zero_sum"]["ok"] is True
    assert data["commission_by_game"]["backgammon"]["net"] == "1.30"
    assert data["commission_by_game"]["rummy"] == {  # fees charged, then refunded in the crash
        "charged_minor": 200,
        "refunded_minor": 200,
        "net_minor": 0,
        "net": "0.00",
    }
    assert data["refunds"]["crash_refund"] == {"amount_minor": 2200, "count": 4}
    assert data["journal_csv_sha256"] == hashlib.sha256(first.stdout).hexdigest()

    statement = ledger(schema, wallet_dsn, "statement", "player_cash:amnon:USD", *period)
    body = json.loads(statement.stdout)
    assert (body["opening_minor"], body["closing_minor"]) == (0, 50_870)
    trial = ledger(schema, wallet_dsn, "trial-balance", "--currency", "USD")
    assert trial.returncode == 0 and json.loads(trial.stdout)["totals_minor"] == {"USD": 0}
    audit = ledger(schema, wallet_dsn, "audit")
    assert audit.returncode == 0 and json.loads(audit.stdout)["ok"] is True
    migrate = ledger(schema, wallet_dsn, "migrate")
    assert b"none (up to date)" in migrate.stdout
    bad = ledger(schema, wallet_dsn, "journal", "--from", "2026-11-30", "--to", "2026-11-29")
    assert bad.returncode == 2 and b"end must be after its start" in bad.stderr
