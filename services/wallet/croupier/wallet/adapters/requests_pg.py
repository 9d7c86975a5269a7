"""The `handled_requests` table: which Kafka requests were applied or dead-lettered."""

from __future__ import annotations

from datetime import datetime

import asyncpg  # type: ignore[import-untyped]

__all__ = ["PostgresRequestLog"]


class PostgresRequestLog:
    """The `handled_requests` table: which Kafka requests were applied or dead-lettered."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def outcome(self, envelope_id: str) -> tuple[str, str] | None:
        async with self._pool.acquire() as db:
            row = await db.fetchrow(
                "SELECT outcome, reason FROM handled_requests WHERE envelope_id = $1", envelope_id
            )
        return None if row is None else (row["outcome"], row["reason"])

    async def record(
        self, envelope_id: str, request_type: str, outcome: str, reason: str, now: datetime
    ) -> None:
        async with self._pool.acquire() as db:
            await db.execute(
                """INSERT INTO handled_requests (envelope_id, request_type, outcome, reason,
                                                 handled_at)
                   VALUES ($1, $2, $3, $4, $5) ON CONFLICT (envelope_id) DO NOTHING""",
                envelope_id,
                request_type,
                outcome,
                reason,
                now,
            )
