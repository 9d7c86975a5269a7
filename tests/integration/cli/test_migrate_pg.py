"""`croupier migrate SERVICE` (the chart's migration Jobs) and services that only check at
start (`CROUPIER_MIGRATE_AT_START=check`), on the real PostgreSQL."""

from __future__ import annotations

import asyncio

import pytest

from croupier.kit.migrations import MigrationError
from croupier.lobby.bootstrap import open_database
from tests.support.cli import run
from tests.support.infra import unique_name


async def migrations_applied(dsn: str, schema: str) -> int:
    """Opens the lobby's database as the service does at start (checking, here)."""
    pool = await open_database(dsn, schema, pool_size=1)
    try:
        return int(await pool.fetchval("SELECT count(*) FROM schema_migrations"))
    finally:
        await pool.close()


def test_a_checking_service_refuses_an_unmigrated_schema_until_the_job_ran(
    postgres_dsn: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = unique_name("lobby_job")
    monkeypatch.setenv("CROUPIER_POSTGRES_DSN", postgres_dsn)
    monkeypatch.setenv("CROUPIER_LOBBY_SCHEMA", schema)
    monkeypatch.setenv("CROUPIER_MIGRATE_AT_START", "check")
    with pytest.raises(MigrationError, match=rf"schema {schema} lacks the migrations 0001_"):
        asyncio.run(migrations_applied(postgres_dsn, schema))

    code, out, err = run(["migrate", "lobby"], capsys)
    assert (code, out, err) == (0, "", ["croupier migrate lobby: the schema is up to date"])

    monkeypatch.setenv("CROUPIER_MIGRATE_AT_START", "check")
    assert asyncio.run(migrations_applied(postgres_dsn, schema)) >= 1


def test_an_unreachable_database_is_one_line_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CROUPIER_POSTGRES_DSN", "postgresql://nobody@127.0.0.1:1/none")
    code, out, err = run(["migrate", "tournament"], capsys)
    assert (code, out) == (2, "")
    assert len(err) == 1 and err[0].startswith("croupier migrate tournament: ")
