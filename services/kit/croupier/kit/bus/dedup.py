"""Deduplication by envelope id, so that redelivery never applies an effect twice.

Two implementations:

- `InMemoryDeduplicator`: a bounded LRU set per consumer, for handlers without a database and for
  unit tests. It protects against redelivery within one process's life only.
- `PostgresDeduplicator`: the table `processed_envelopes(consumer, envelope_id)`. A handler that
  changes the database calls `claim(connection, consumer, envelope_id)` inside its own transaction:
  the claim and the effect commit together or not at all, which is what makes the effect happen
  exactly once even across crashes. Used as the bus's `deduplicator`, `seen`/`remember` run in
  their own short transactions (weaker: a crash between the handler and `remember` redelivers).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Protocol

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

__all__ = ["Deduplicator", "InMemoryDeduplicator", "PostgresDeduplicator"]

_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


class Deduplicator(Protocol):
    async def seen(self, consumer: str, envelope_id: str) -> bool:
        """True if `consumer` has already handled `envelope_id`."""
        ...

    async def remember(self, consumer: str, envelope_id: str) -> None:
        """Record that `consumer` has handled `envelope_id` (called after the handler succeeded)."""
        ...


class InMemoryDeduplicator:
    """Remembers the last `capacity` envelope ids per consumer (least recently seen dropped)."""

    def __init__(self, *, capacity: int = 100_000) -> None:
        if capacity < 1:
            raise ValueError("capacity must be positive")
        self._capacity = capacity
        self._ids: dict[str, OrderedDict[str, None]] = {}

    async def seen(self, consumer: str, envelope_id: str) -> bool:
        ids = self._ids.get(consumer)
        if ids is None or envelope_id not in ids:
            return False
        ids.move_to_end(envelope_id)
        return True

    async def remember(self, consumer: str, envelope_id: str) -> None:
        ids = self._ids.setdefault(consumer, OrderedDict())
        ids[envelope_id] = None
        ids.move_to_end(envelope_id)
        while len(ids) > self._capacity:
            ids.popitem(last=False)


def quote_schema(schema: str) -> str:
    """The schema name checked as a plain lower-case identifier (it is spliced into SQL)."""
    if not _IDENTIFIER.match(schema):
        raise ValueError(f"schema must be a lower-case SQL identifier, got {schema!r}")
    return f'"{schema}"'


class PostgresDeduplicator:
    """`processed_envelopes` in `schema` (each service has its own schema)."""

    def __init__(self, pool: asyncpg.Pool, *, schema: str = "public") -> None:
        self._pool = pool
        self._table = f"{quote_schema(schema)}.processed_envelopes"

    @property
    def table(self) -> str:
        return self._table

    def create_table_sql(self) -> str:
        """DDL for the table (idempotent): for a service's migrations or `create_table`."""
        return (
            f"CREATE TABLE IF NOT EXISTS {self._table} ("
            " consumer text NOT NULL,"
            " envelope_id text NOT NULL,"
            " processed_at timestamptz NOT NULL DEFAULT now(),"
            " PRIMARY KEY (consumer, envelope_id))"
        )

    async def create_table(self) -> None:
        async with self._pool.acquire() as connection:
            await connection.execute(self.create_table_sql())

    async def claim(self, connection: asyncpg.Connection, consumer: str, envelope_id: str) -> bool:
        """Inside the caller's transaction: True the first time, False if already processed.

        If the caller's transaction rolls back, so does the claim, and a redelivery is handled.
        """
        if not connection.is_in_transaction():
            raise RuntimeError("claim() must run inside the handler's transaction")
        inserted = await connection.fetchval(
            f"INSERT INTO {self._table} (consumer, envelope_id) VALUES ($1, $2)"
            " ON CONFLICT DO NOTHING RETURNING true",
            consumer,
            envelope_id,
        )
        return inserted is True

    async def seen(self, consumer: str, envelope_id: str) -> bool:
        async with self._pool.acquire() as connection:
            found = await connection.fetchval(
                f"SELECT true FROM {self._table} WHERE consumer = $1 AND envelope_id = $2",
                consumer,
                envelope_id,
            )
        return found is True

    async def remember(self, consumer: str, envelope_id: str) -> None:
        async with self._pool.acquire() as connection:
            await connection.execute(
                f"INSERT INTO {self._table} (consumer, envelope_id) VALUES ($1, $2)"
                " ON CONFLICT DO NOTHING",
                consumer,
                envelope_id,
            )
