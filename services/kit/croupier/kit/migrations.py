"""Forward-only schema migrations: numbered SQL files applied once, tracked in a table.

A service keeps its `migrations/NNNN_name.sql` files in a package folder (the wallet's and
the tournament director's `adapters/migrations/`); they are applied in order, each in its
own transaction, under an advisory lock so that replicas starting together do not race.
An applied file whose text has changed since is refused: migrations are never edited,
only added.

Where a migration Job applies them before the new pods start (the chart's Helm hooks,
`croupier migrate`), the services are told to only check at start
(`CROUPIER_MIGRATE_AT_START=check`): a service whose schema lacks a migration refuses to
start, naming it, rather than migrating behind the Job's back.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import re
from dataclasses import dataclass

import asyncpg  # type: ignore[import-untyped]

from croupier.kit.settings import choice, env, load

__all__ = [
    "Migration",
    "MigrationError",
    "MigrationSettings",
    "available_migrations",
    "check_migrated",
    "migrate",
    "migrate_database",
]

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


class MigrationError(RuntimeError):
    """An applied migration was edited, or the files are misnumbered."""


@dataclass(frozen=True)
class MigrationSettings:
    at_start: str = env(
        "CROUPIER_MIGRATE_AT_START",
        choice("apply", "check"),
        "apply",
        doc="apply: a service applies its pending migrations as it starts; check: a migration "
        "Job applied them, the service refuses to start if one is missing",
    )


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def available_migrations(package: str) -> list[Migration]:
    """The migrations in `package`'s `migrations` folder, in order."""
    folder = importlib.resources.files(package) / "migrations"
    found: list[Migration] = []
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    if [m.version for m in found] != list(range(1, len(found) + 1)):
        raise MigrationError(f"migrations must be numbered 0001, 0002, … without gaps: {found}")
    return found


def quote_ident(name: str) -> str:
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
        raise ValueError(f"schema name {name!r} must be lower-case letters, digits, underscore")
    return f'"{name}"'


async def migrate(
    connection: asyncpg.Connection, schema: str, package: str, lock_key: int
) -> list[int]:
    """Create `schema` if needed and apply every migration of `package` not yet applied;
    return them. `lock_key` is the service's advisory lock id (one per service)."""
    quoted = quote_ident(schema)
    applied_now: list[int] = []
    await connection.execute("SELECT pg_advisory_lock($1)", lock_key)
    try:
        await connection.execute(f"CREATE SCHEMA IF NOT EXISTS {quoted}")
        await connection.execute(f"SET search_path TO {quoted}")
        await connection.execute(
            """CREATE TABLE IF NOT EXISTS schema_migrations (
                   version integer PRIMARY KEY, name text NOT NULL,
                   checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"""
        )
        rows = await connection.fetch("SELECT version, checksum FROM schema_migrations")
        applied = {row["version"]: row["checksum"] for row in rows}
        for migration in available_migrations(package):
            if migration.version in applied:
                _refuse_if_edited(migration, applied[migration.version])
                continue
            async with connection.transaction():
                await connection.execute(migration.sql)
                await connection.execute(
                    "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                    migration.version,
                    migration.name,
                    migration.checksum,
                )
            applied_now.append(migration.version)
    finally:
        await connection.execute("SELECT pg_advisory_unlock($1)", lock_key)
        await connection.execute("RESET search_path")
    return applied_now


def _refuse_if_edited(migration: Migration, applied_checksum: str) -> None:
    if applied_checksum != migration.checksum:
        raise MigrationError(
            f"migration {migration.version:04d}_{migration.name} was edited after "
            "it was applied; add a new migration instead"
        )


async def check_migrated(connection: asyncpg.Connection, schema: str, package: str) -> None:
    """Refuse `schema` if a migration of `package` is missing from it (or was edited)."""
    table = f"{quote_ident(schema)}.schema_migrations"
    applied: dict[int, str] = {}
    if await connection.fetchval("SELECT to_regclass($1)", table) is not None:
        rows = await connection.fetch(f"SELECT version, checksum FROM {table}")
        applied = {row["version"]: row["checksum"] for row in rows}
    missing = []
    for migration in available_migrations(package):
        if migration.version in applied:
            _refuse_if_edited(migration, applied[migration.version])
        else:
            missing.append(f"{migration.version:04d}_{migration.name}")
    if missing:
        raise MigrationError(
            f"schema {schema} lacks the migrations {', '.join(missing)}: the migration Job "
            "applies them (CROUPIER_MIGRATE_AT_START=check leaves them to it)"
        )


async def migrate_database(
    dsn: str, schema: str, package: str, lock_key: int, *, apply: bool | None = None
) -> list[int]:
    """`migrate` on a connection of its own to `dsn`, closed afterwards: what a service
    does before it opens its pool. `apply`: False only checks (`check_migrated`); by
    default `CROUPIER_MIGRATE_AT_START` says."""
    if apply is None:
        apply = load(MigrationSettings).at_start == "apply"
    connection = await asyncpg.connect(dsn)
    try:
        if not apply:
            await check_migrated(connection, schema, package)
            return []
        return await migrate(connection, schema, package, lock_key)
    finally:
        await connection.close()
