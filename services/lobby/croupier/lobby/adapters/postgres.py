"""The lobby's PostgreSQL repository: a row per listed table, per ticket and per account's
limits, and the kit's outbox, which carries each change to `croupier.lobby.events`
(written in the transaction that saves it, so an event leaves if and only if its change
commits). Rows replace their version `n - 1` only (`Conflict` otherwise)."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import asyncpg  # type: ignore[import-untyped]

from croupier.kit.outbox import Outbox
from croupier.lobby import codec
from croupier.lobby.adapters import rows
from croupier.lobby.core.free_seats import SeatCount, list_key_of
from croupier.lobby.core.policy import AccountLimits
from croupier.lobby.core.ratings import Rating
from croupier.lobby.service.ports import Conflict, RatingUpdate
from croupier.lobby.service.records import (
    TableRecord,
    TicketRecord,
    TicketStatus,
    WaitingEntry,
)

__all__ = ["PostgresRepository", "PostgresTickLock", "create_pool"]

_TABLE = "SELECT state, request_key, version, change FROM lobby_tables"
_TICKET = "SELECT record, request_key, status, version FROM lobby_tickets"
_WAITING = "SELECT entry FROM waiting_lists"
_SEAT_COUNTS = """
SELECT table_id, version, terms->>'shape' AS shape, terms->>'currency' AS currency,
       (terms->>'stake')::bigint AS stake,
       CASE WHEN (state->>'private')::boolean THEN 0
            ELSE (terms->>'seats')::int - jsonb_array_length(state->'seated')
                 - jsonb_array_length(state->'holds') END AS free
FROM (SELECT table_id, version, state, state->'terms' AS terms FROM lobby_tables
      WHERE NOT closed) AS open_tables
"""


async def create_pool(dsn: str, schema: str, *, min_size: int = 1, max_size: int = 10) -> Any:
    """A connection pool whose connections work in the lobby's schema."""
    return await asyncpg.create_pool(
        dsn,
        min_size=min_size,
        max_size=max_size,
        server_settings={"search_path": schema, "application_name": "croupier-lobby"},
    )


def _table(row: Mapping[str, Any]) -> TableRecord:
    return TableRecord(
        rows.table_from_json(row["state"]), row["request_key"], row["version"], row["change"]
    )


def _ticket(row: Mapping[str, Any]) -> TicketRecord:
    return rows.ticket_from_json(
        row["record"], request_key=row["request_key"], status=row["status"], version=row["version"]
    )


class PostgresTickLock:
    """One lobby replica ticks at a time on a schema: a transaction-scoped advisory lock
    taken without waiting and held for the tick, so it is released when the tick ends or
    its connection dies with the replica (the next tick of another replica takes it)."""

    def __init__(self, pool: Any, schema: str) -> None:
        self._pool = pool
        digest = hashlib.sha256(f"{schema}.lobby-ticker".encode()).digest()
        self._key = int.from_bytes(digest[:8], "big", signed=True)

    @contextlib.asynccontextmanager
    async def __call__(self) -> AsyncIterator[bool]:
        async with self._pool.acquire() as connection, connection.transaction():
            yield await connection.fetchval("SELECT pg_try_advisory_xact_lock($1)", self._key)


class PostgresRepository:
    def __init__(self, pool: Any, schema: str) -> None:
        self._pool = pool
        self._outbox = Outbox(schema=schema)

    # ---- tables -------------------------------------------------------------------------

    async def add_table(self, record: TableRecord) -> tuple[TableRecord, bool]:
        async with self._pool.acquire() as connection, connection.transaction():
            change = await connection.fetchval(
                "INSERT INTO lobby_tables (table_id, request_key, state, closed, version)"
                " VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING change",
                record.table.table_id,
                record.request_key,
                rows.table_to_json(record.table),
                record.table.closed,
                record.version,
            )
            if change is None:
                row = await connection.fetchrow(
                    f"{_TABLE} WHERE request_key = $1", record.request_key
                )
                return _table(row), False
            stored = TableRecord(record.table, record.request_key, record.version, change)
            await self._outbox.add(connection, codec.EVENTS_TOPIC, codec.table_listed(stored))
            return stored, True

    async def table(self, table_id: str) -> TableRecord | None:
        row = await self._pool.fetchrow(f"{_TABLE} WHERE table_id = $1", table_id)
        return None if row is None else _table(row)

    async def table_by_key(self, request_key: str) -> TableRecord | None:
        row = await self._pool.fetchrow(f"{_TABLE} WHERE request_key = $1", request_key)
        return None if row is None else _table(row)

    async def save_table(self, record: TableRecord) -> TableRecord:
        async with self._pool.acquire() as connection, connection.transaction():
            change = await connection.fetchval(
                "UPDATE lobby_tables SET state = $2, closed = $3, version = $4,"
                " change = nextval('lobby_changes') WHERE table_id = $1 AND version = $5"
                " RETURNING change",
                record.table.table_id,
                rows.table_to_json(record.table),
                record.table.closed,
                record.version,
                record.version - 1,
            )
            if change is None:
                raise Conflict("the table changed meanwhile; retry")
            stored = TableRecord(record.table, record.request_key, record.version, change)
            await self._outbox.add(connection, codec.EVENTS_TOPIC, codec.table_listed(stored))
            return stored

    async def open_tables(self) -> list[TableRecord]:
        found = await self._pool.fetch(f"{_TABLE} WHERE NOT closed ORDER BY opened_at, table_id")
        return [_table(row) for row in found]

    async def held_tables(self) -> list[TableRecord]:
        found = await self._pool.fetch(
            f"{_TABLE} WHERE NOT closed AND state->'holds' <> '[]'::jsonb ORDER BY opened_at"
        )
        return [_table(row) for row in found]

    async def seat_counts(self) -> tuple[list[SeatCount], int]:
        # The index's few fields read in SQL: 100,000 documents decoded took seconds.
        async with (
            self._pool.acquire() as connection,
            connection.transaction(isolation="repeatable_read", readonly=True),
        ):
            last = await connection.fetchval("SELECT coalesce(max(change), 0) FROM lobby_tables")
            found = await connection.fetch(_SEAT_COUNTS)
        counts = [
            SeatCount(
                row["table_id"],
                list_key_of(row["shape"], row["currency"], row["stake"]),
                row["version"],
                row["free"],
            )
            for row in found
        ]
        return counts, last

    async def changed_since(self, change: int) -> list[TableRecord]:
        found = await self._pool.fetch(f"{_TABLE} WHERE change > $1 ORDER BY change", change)
        return [_table(row) for row in found]

    # ---- tickets ------------------------------------------------------------------------

    async def add_ticket(self, record: TicketRecord) -> tuple[TicketRecord, bool]:
        async with self._pool.acquire() as connection, connection.transaction():
            inserted = await connection.fetchval(
                "INSERT INTO lobby_tickets"
                " (ticket_id, request_key, player, status, created, record, version)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING true",
                record.ticket.ticket_id,
                record.request_key,
                record.ticket.player,
                record.status.value,
                record.ticket.created,
                rows.ticket_to_json(record),
                record.version,
            )
            if not inserted:
                row = await connection.fetchrow(
                    f"{_TICKET} WHERE request_key = $1", record.request_key
                )
                return _ticket(row), False
            await self._outbox.add(connection, codec.EVENTS_TOPIC, codec.ticket_changed(record))
            return record, True

    async def ticket(self, ticket_id: str) -> TicketRecord | None:
        row = await self._pool.fetchrow(f"{_TICKET} WHERE ticket_id = $1", ticket_id)
        return None if row is None else _ticket(row)

    async def save_tickets(self, records: Sequence[TicketRecord]) -> None:
        # One statement for the whole pass (a matchmaker pass may save tens of thousands).
        if not records:
            return
        async with self._pool.acquire() as connection, connection.transaction():
            updated = await connection.fetch(
                "UPDATE lobby_tickets AS t SET status = u.status, record = u.record::jsonb,"
                " version = u.version"
                " FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[])"
                " AS u(ticket_id, status, record, version)"
                " WHERE t.ticket_id = u.ticket_id AND t.version = u.version - 1"
                " RETURNING t.ticket_id",
                [record.ticket.ticket_id for record in records],
                [record.status.value for record in records],
                [rows.ticket_to_json(record) for record in records],
                [record.version for record in records],
            )
            if len(updated) != len(records):
                raise Conflict("a ticket changed meanwhile; retry")
            await self._outbox.add_many(
                connection, codec.EVENTS_TOPIC, [codec.ticket_changed(r) for r in records]
            )

    async def tickets(self, *statuses: TicketStatus) -> list[TicketRecord]:
        found = await self._pool.fetch(
            f"{_TICKET} WHERE status = ANY($1::text[]) ORDER BY created, ticket_id",
            [status.value for status in statuses],
        )
        return [_ticket(row) for row in found]

    async def last_opponents(self, player: str) -> frozenset[str]:
        found = await self._pool.fetch(
            "SELECT player FROM lobby_tickets WHERE status = 'seated' AND player <> $1"
            " AND record->>'match_id' = (SELECT record->>'match_id' FROM lobby_tickets"
            "  WHERE player = $1 AND status = 'seated'"
            "  ORDER BY created DESC, ticket_id DESC LIMIT 1)",
            player,
        )
        return frozenset(row["player"] for row in found)

    # ---- ratings ------------------------------------------------------------------------

    async def ratings(self, game: str, players: Sequence[str]) -> dict[str, Rating]:
        found = await self._pool.fetch(
            "SELECT player, rating FROM ratings WHERE game = $1 AND player = ANY($2::text[])",
            game,
            list(players),
        )
        return {row["player"]: rows.rating_from_json(row["rating"]) for row in found}

    async def rate(
        self,
        result_id: str,
        game: str,
        players: Sequence[str],
        start: Rating,
        update: RatingUpdate,
    ) -> bool:
        async with self._pool.acquire() as connection, connection.transaction():
            fresh = await connection.fetchval(
                "INSERT INTO rated_results (result_id) VALUES ($1)"
                " ON CONFLICT DO NOTHING RETURNING true",
                result_id,
            )
            if not fresh:
                return False
            await connection.execute(
                "INSERT INTO ratings (game, player, rating)"
                " SELECT $1, unnest($2::text[]), $3 ON CONFLICT DO NOTHING",
                game,
                list(players),
                rows.rating_to_json(start),
            )
            found = await connection.fetch(
                "SELECT player, rating FROM ratings WHERE game = $1 AND player = ANY($2::text[])"
                " ORDER BY player FOR UPDATE",
                game,
                list(players),
            )
            now = {row["player"]: rows.rating_from_json(row["rating"]) for row in found}
            await connection.executemany(
                "UPDATE ratings SET rating = $3 WHERE game = $1 AND player = $2",
                [(game, p, rows.rating_to_json(r)) for p, r in update(now).items()],
            )
            return True

    # ---- waiting lists ------------------------------------------------------------------

    async def add_waiting(self, entry: WaitingEntry) -> bool:
        added = await self._pool.fetchval(
            "INSERT INTO waiting_lists (list_key, player, created, entry) VALUES ($1, $2, $3, $4)"
            " ON CONFLICT DO NOTHING RETURNING true",
            entry.list_key,
            entry.player,
            entry.created,
            rows.waiting_to_json(entry),
        )
        return bool(added)

    async def waiting(self, list_key: str | None = None) -> list[WaitingEntry]:
        if list_key is None:
            found = await self._pool.fetch(f"{_WAITING} ORDER BY created, list_key, player")
        else:
            found = await self._pool.fetch(
                f"{_WAITING} WHERE list_key = $1 ORDER BY created, player", list_key
            )
        return [rows.waiting_from_json(row["entry"]) for row in found]

    async def remove_waiting(self, list_key: str, player: str) -> bool:
        removed = await self._pool.fetchval(
            "DELETE FROM waiting_lists WHERE list_key = $1 AND player = $2 RETURNING true",
            list_key,
            player,
        )
        return bool(removed)

    # ---- tournament queues --------------------------------------------------------------

    async def queue_position(self, queue_id: str) -> tuple[int, str]:
        row = await self._pool.fetchrow(
            "SELECT sequence, tournament_id FROM tournament_queues WHERE queue_id = $1", queue_id
        )
        return (row["sequence"], row["tournament_id"]) if row else (0, "")

    async def move_queue(self, queue_id: str, sequence: int, tournament_id: str) -> tuple[int, str]:
        row = await self._pool.fetchrow(
            "INSERT INTO tournament_queues AS q (queue_id, sequence, tournament_id)"
            " VALUES ($1, $2, $3) ON CONFLICT (queue_id) DO UPDATE"
            " SET sequence = EXCLUDED.sequence, tournament_id = EXCLUDED.tournament_id,"
            " waiting = 0"
            " WHERE q.sequence < EXCLUDED.sequence"
            " OR (q.sequence = EXCLUDED.sequence AND q.tournament_id = '')"
            " RETURNING sequence, tournament_id",
            queue_id,
            sequence,
            tournament_id,
        )
        return (
            (row["sequence"], row["tournament_id"]) if row else await self.queue_position(queue_id)
        )

    async def queue_waiting(self, queue_id: str) -> int:
        waiting = await self._pool.fetchval(
            "SELECT waiting FROM tournament_queues WHERE queue_id = $1", queue_id
        )
        return int(waiting or 0)

    async def fills(self, tournament_id: str) -> bool:
        found = await self._pool.fetchval(
            "SELECT true FROM tournament_queues WHERE tournament_id = $1", tournament_id
        )
        return bool(found)

    async def set_queue_waiting(self, tournament_id: str, waiting: int) -> None:
        await self._pool.execute(
            "UPDATE tournament_queues SET waiting = $2 WHERE tournament_id = $1",
            tournament_id,
            waiting,
        )

    # ---- account limits -----------------------------------------------------------------

    async def limits(self, player: str) -> AccountLimits:
        text = await self._pool.fetchval(
            "SELECT limits FROM account_limits WHERE player = $1", player
        )
        return AccountLimits() if text is None else rows.limits_from_json(text)

    async def set_limits(self, player: str, limits: AccountLimits) -> None:
        await self._pool.execute(
            "INSERT INTO account_limits (player, limits) VALUES ($1, $2)"
            " ON CONFLICT (player) DO UPDATE SET limits = EXCLUDED.limits",
            player,
            rows.limits_to_json(limits),
        )
