"""Forward-only schema migrations of the director: `migrations/NNNN_name.sql`, applied once
each in order, in its own transaction, under an advisory lock (replicas starting together
do not race); an applied file whose text changed is refused.

The same procedure as `croupier.wallet.adapters.migrations` with the director's folder and
lock; both belong in `croupier.kit` once a third service needs them.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import re

import asyncpg  # type: ignore[import-untyped]

__all__ = ["MigrationError", "migrate"]

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_LOCK_KEY = 0x7047A3E7  # advisory lock id for "tournament migrations"


class MigrationError(RuntimeError):
    """An applied migration was edited, or the files are misnumbered."""


def _migrations() -> list[tuple[int, str, str]]:
    folder = importlib.resources.files("croupier.tournament.adapters") / "migrations"
    found = sorted(
        (int(match[1]), match[2], entry.read_text(encoding="utf-8"))
        for entry in folder.iterdir()
        if (match := _NAME.match(entry.name))
    )
    if [version for version, _, _ in found] != list(range(1, len(found) + 1)):
        raise MigrationError("migrations must be numbered 0001, 0002, … without gaps")
    return found


async def migrate(connection: asyncpg.Connection, schema: str) -> list[int]:
    """Create `schema` if needed and apply every migration not yet applied; return them."""
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", schema):
        raise ValueError(f"schema name {schema!r} must be lower-case letters, digits, underscore")
    applied_now: list[int] = []
    await connection.execute("SELECT pg_advisory_lock($1)", _LOCK_KEY)
    try:
        await connection.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
        await connection.execute(f'SET search_path TO "{schema}"')
        await connection.execute(
            """CREATE TABLE IF NOT EXISTS schema_migrations (
                   version integer PRIMARY KEY, name text NOT NULL,
                   checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"""
        )
        rows = await connection.fetch("SELECT version, checksum FROM schema_migrations")
        applied = {row["version"]: row["checksum"] for row in rows}
        for version, name, sql in _migrations():
            checksum = hashlib.sha256(sql.encode()).hexdigest()
            if version in applied:
                if applied[version] != checksum:
                    raise MigrationError(f"migration {version:04d}_{name} was edited after it ran")
                continue
            async with connection.transaction():
                await connection.execute(sql)
                await connection.execute(
                    "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                    version,
                    name,
                    checksum,
                )
            applied_now.append(version)
    finally:
        await connection.execute("SELECT pg_advisory_unlock($1)", _LOCK_KEY)
        await connection.execute("RESET search_path")
    return applied_now
