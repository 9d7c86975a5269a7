"""The director's PostgreSQL repository: one row per tournament, its events, and the
kit's outbox, which carries each event to `croupier.tournament.events` (written in the
transaction that saves the change, so an event leaves if and only if its change commits).

Settings and events are stored in their protobuf encodings (`croupier.tournament.codec`);
entries, seats, rebuy offers and the rounds' tables as JSON arrays, the points core's
actions in the conformance notation (`croupier.tournament.conformance`), and a poker
tournament's inputs and hands as one JSON document (`poker_json`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import asyncpg  # type: ignore[import-untyped]

from croupier.kit.outbox import Outbox
from croupier.tournament import codec
from croupier.tournament.adapters.poker_json import poker_from_json, poker_to_json
from croupier.tournament.conformance import action_to_json, read_action
from croupier.tournament.service.events import Recorded
from croupier.tournament.service.model import (
    Entry,
    HostedRound,
    RebuyOffer,
    SeatAt,
    Status,
    TournamentRecord,
)
from croupier.tournament.service.ports import Conflict, Unreadable
from croupier.tournament.v1 import tournament_pb2

__all__ = ["PostgresRepository", "create_pool"]

_COLUMNS = (
    "tournament_id, request_key, settings, status, entries, seats, seating_seed, actions,"
    " offers, hosted, events, version, poker"
)


async def create_pool(dsn: str, schema: str, *, min_size: int = 1, max_size: int = 10) -> Any:
    """A connection pool whose connections work in the director's schema."""
    return await asyncpg.create_pool(
        dsn,
        min_size=min_size,
        max_size=max_size,
        server_settings={"search_path": schema, "application_name": "croupier-tournament"},
    )


def _readable(row: Mapping[str, Any]) -> TournamentRecord:
    """The row's record; `Unreadable` (with what could be read) when it does not decode."""
    try:
        return _record(row)
    except Exception as exc:  # whatever a bad row raises, it is unreadable
        game_currency = None
        with contextlib.suppress(Exception):
            settings = codec.settings_from_proto(
                tournament_pb2.TournamentSettings.FromString(row["settings"])
            )
            game_currency = (settings.game, settings.currency)
        why = f"{type(exc).__name__}: {str(exc)[:200]}"
        raise Unreadable(row["tournament_id"], row["status"], game_currency, why) from exc


def _record(row: Mapping[str, Any]) -> TournamentRecord:
    settings = tournament_pb2.TournamentSettings.FromString(row["settings"])
    poker_inputs, hands = poker_from_json(row["poker"])
    return TournamentRecord(
        tournament_id=row["tournament_id"],
        request_key=row["request_key"],
        settings=codec.settings_from_proto(settings),
        status=Status(row["status"]),
        # [player, entry_id, refunded, bot]; rows from before bots have no bot flag.
        entries=tuple(Entry(*entry) for entry in json.loads(row["entries"])),
        seats=tuple(SeatAt(t, s, p) for t, s, p in json.loads(row["seats"])),
        seating_seed=bytes(row["seating_seed"]),
        actions=tuple(
            read_action(action, f"actions[{index}]")
            for index, action in enumerate(json.loads(row["actions"]))
        ),
        offers=tuple(
            RebuyOffer(player, datetime.fromisoformat(until))
            for player, until in json.loads(row["offers"])
        ),
        hosted=tuple(HostedRound(r, t) for r, t in json.loads(row["hosted"])),
        poker_inputs=poker_inputs,
        hands=hands,
        events=row["events"],
        version=row["version"],
    )


def _entries(record: TournamentRecord) -> str:
    return json.dumps([[e.player, e.entry_id, e.refunded, e.bot] for e in record.entries])


def _seats(record: TournamentRecord) -> str:
    return json.dumps([[s.table, s.seat, s.player] for s in record.seats])


def _rounds(record: TournamentRecord) -> tuple[str, str, str]:
    """The actions, the offers and the hosted rounds, as stored."""
    return (
        json.dumps([action_to_json(action) for action in record.actions]),
        json.dumps([[o.player, o.until.isoformat()] for o in record.offers]),
        json.dumps([[h.round_id, h.table_id] for h in record.hosted]),
    )


class PostgresRepository:
    def __init__(self, pool: Any, schema: str) -> None:
        self._pool = pool
        self._outbox = Outbox(schema=schema)

    async def _add_events(self, connection: Any, events: Sequence[Recorded]) -> None:
        for recorded in events:
            await connection.execute(
                "INSERT INTO tournament_events (tournament_id, sequence, event)"
                " VALUES ($1, $2, $3)",
                recorded.tournament_id,
                recorded.sequence,
                codec.event_to_proto(recorded).SerializeToString(),
            )
            await self._outbox.add(connection, codec.EVENTS_TOPIC, codec.envelope(recorded))

    async def create(
        self, record: TournamentRecord, event: Recorded
    ) -> tuple[TournamentRecord, bool]:
        async with self._pool.acquire() as connection, connection.transaction():
            inserted = await connection.fetchval(
                f"INSERT INTO tournaments ({_COLUMNS}, start_time)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
                " ON CONFLICT (request_key) DO NOTHING RETURNING true",
                record.tournament_id,
                record.request_key,
                codec.settings_to_proto(record.settings).SerializeToString(),
                record.status.value,
                _entries(record),
                _seats(record),
                record.seating_seed,
                *_rounds(record),
                record.events,
                record.version,
                poker_to_json(record),
                record.settings.start_time,
            )
            if inserted:
                await self._add_events(connection, [event])
                return record, True
            row = await connection.fetchrow(
                f"SELECT {_COLUMNS} FROM tournaments WHERE request_key = $1", record.request_key
            )
            return _record(row), False

    async def get(self, tournament_id: str) -> TournamentRecord | None:
        row = await self._pool.fetchrow(
            f"SELECT {_COLUMNS} FROM tournaments WHERE tournament_id = $1", tournament_id
        )
        return None if row is None else _readable(row)

    async def save(self, record: TournamentRecord, events: Sequence[Recorded]) -> None:
        async with self._pool.acquire() as connection, connection.transaction():
            updated = await connection.fetchval(
                "UPDATE tournaments SET status = $2, entries = $3, seats = $4,"
                " seating_seed = $5, actions = $6, offers = $7, hosted = $8, events = $9,"
                " version = $10, poker = $12 WHERE tournament_id = $1 AND version = $11"
                " RETURNING true",
                record.tournament_id,
                record.status.value,
                _entries(record),
                _seats(record),
                record.seating_seed,
                *_rounds(record),
                record.events,
                record.version,
                record.version - 1,
                poker_to_json(record),
            )
            if not updated:
                raise Conflict("the tournament changed meanwhile; retry")
            await self._add_events(connection, events)

    async def due(self, now: datetime) -> list[str]:
        rows = await self._pool.fetch(
            "SELECT tournament_id FROM tournaments WHERE status = 'registering'"
            " AND start_time <= $1 ORDER BY start_time",
            now,
        )
        return [row["tournament_id"] for row in rows]

    async def running(self) -> list[str]:
        rows = await self._pool.fetch(
            "SELECT tournament_id FROM tournaments WHERE status = 'running' ORDER BY start_time"
        )
        return [row["tournament_id"] for row in rows]

    async def void_unreadable(self, unreadable: Unreadable, event: Recorded) -> None:
        async with self._pool.acquire() as connection, connection.transaction():
            sequence = await connection.fetchval(
                "UPDATE tournaments SET status = 'voided', events = events + 1,"
                " version = version + 1 WHERE tournament_id = $1 RETURNING events",
                unreadable.tournament_id,
            )
            await self._add_events(connection, [replace(event, sequence=sequence)])

    async def listed(
        self, statuses: frozenset[Status], after: tuple[datetime, str] | None, limit: int
    ) -> list[TournamentRecord]:
        start, last = after if after is not None else (None, "")
        rows = await self._pool.fetch(
            f"SELECT {_COLUMNS} FROM tournaments WHERE status = ANY($1::text[])"
            " AND ($2::timestamptz IS NULL"
            ' OR (start_time, tournament_id COLLATE "C") > ($2, $3::text COLLATE "C"))'
            ' ORDER BY start_time, tournament_id COLLATE "C" LIMIT $4',
            sorted(status.value for status in statuses),
            start,
            last,
            limit,
        )
        listed = []
        for row in rows:
            with contextlib.suppress(Unreadable):  # voided when next touched: not listed
                listed.append(_readable(row))
        return listed

    async def events_after(self, tournament_id: str, sequence: int) -> list[Recorded]:
        rows = await self._pool.fetch(
            "SELECT event FROM tournament_events WHERE tournament_id = $1 AND sequence > $2"
            " ORDER BY sequence",
            tournament_id,
            sequence,
        )
        return [
            codec.event_from_proto(tournament_pb2.TournamentEvent.FromString(row["event"]))
            for row in rows
        ]
