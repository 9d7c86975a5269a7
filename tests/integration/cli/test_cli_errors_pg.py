"""The `croupier ledger` command's refusals that need a real database: one clear line and
exit code 2 for a schema without a ledger or an unknown currency."""

from __future__ import annotations

import pytest

from tests.support.cli import run
from tests.support.infra import unique_name


def test_ledger_schema_without_a_ledger_is_one_line_exit_2(
    postgres_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = unique_name("nosuch")
    argv = ["ledger", "--dsn", postgres_dsn, "--schema", schema]
    code, out, err = run([*argv, "reconcile", "--day", "2026-11-29", "--currency", "USD"], capsys)
    assert (code, out) == (2, "")
    assert err == [
        f"croupier ledger reconcile: schema {schema!r} holds no wallet ledger (check --schema, "
        "or run `croupier ledger migrate` on a new database)"
    ]


def test_ledger_unknown_currency_is_refused_naming_the_known_ones(
    postgres_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["ledger", "--dsn", postgres_dsn, "--schema", unique_name("ledger_cli")]
    assert run([*argv, "migrate"], capsys)[0] == 0
    code, out, err = run([*argv, "reconcile", "--day", "2026-11-29", "--currency", "XYZ"], capsys)
    assert (code, out) == (2, "")
    assert len(err) == 1
    assert err[0].startswith("croupier ledger reconcile: unknown currency 'XYZ': the ledger knows ")
    assert "USD" in err[0]
    code, _, err = run(
        [*argv, "journal", "--from", "2026-11-29", "--to", "2026-11-30", "--currency", "XYZ"],
        capsys,
    )
    assert code == 2 and "unknown currency 'XYZ'" in err[0]
    # A known currency still answers (an empty, balanced day).
    code, out, _ = run([*argv, "reconcile", "--day", "2026-11-29", "--currency", "USD"], capsys)
    assert code == 0 and out
