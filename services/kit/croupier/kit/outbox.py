"""The transactional outbox: events that go with a database change, written in the same transaction.

A service that changes its PostgreSQL state and must announce it does both in one transaction::

    async with connection.transaction():
        await connection.execute("UPDATE ...")               # the state change
        await outbox.add(connection, "croupier.wallet.transfers", envelope)

Either both commit or neither does: a rolled-back change never announces anything, and a
committed one is always announced. An `OutboxRelay` then publishes the committed rows through
the event bus, in insertion order, and marks them published.

Delivery guarantee. The relay claims a batch (`FOR UPDATE SKIP LOCKED`, inside a transaction),
publishes it and waits for the broker's acknowledgement, then marks the rows published and
commits. Each row is therefore published once in normal operation, including across a graceful
relay restart. If the relay dies after the broker acknowledged but before its commit, the rows
are still unpublished and the next relay publishes them again *with the same envelope ids*:
that is at-least-once on the wire, and exactly-once in effect because every consumer
deduplicates by envelope id (`croupier.kit.bus.dedup`).

Order. Several relays on one outbox are safe: each cycle takes a transaction-scoped advisory
lock on the table, so one relay publishes at a time and one subject's events keep their order
(SKIP LOCKED alone would let two relays interleave a subject's rows).

The relay wakes on `NOTIFY` (sent by `add`, delivered at commit) and also polls, so a lost
notification only costs `poll_interval_seconds`.

Backlog. The relay measures the rows still waiting and the age of the oldest, at most every
`_MEASURE_EVERY_SECONDS` and also while it fails (`croupier_outbox_backlog`,
`croupier_outbox_oldest_unpublished_seconds`): a relay that cannot publish shows as a growing
backlog, not as silence.

Retention. The outbox is a hand-over point, not a record (the service's own tables are): the
relay deletes rows published more than `keep_published_seconds` ago, a bounded batch at a
time, so the table does not grow with every event ever sent. The window keeps recent rows
for looking into a delivery question.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import Sequence
from types import TracebackType
from typing import Any

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type information

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.kit.bus.dedup import quote_schema
from croupier.kit.bus.interface import EventBus
from croupier.kit.metrics import OUTBOX_BACKLOG, OUTBOX_OLDEST_SECONDS

__all__ = ["Outbox", "OutboxError", "OutboxRelay"]

_log = logging.getLogger(__name__)

_ERROR_BACKOFF_SECONDS = 1.0
#: How often a running relay deletes old published rows, and at most how many at a time.
_FORGET_EVERY_SECONDS = 60.0
_FORGET_AT_MOST = 10_000
#: How often a running relay measures its backlog (one indexed query).
_MEASURE_EVERY_SECONDS = 5.0


class OutboxError(RuntimeError):
    """The outbox was misused (e.g. `add` outside a transaction)."""


class Outbox:
    """The `outbox` table of one schema (each service has its own schema)."""

    def __init__(self, *, schema: str = "public") -> None:
        self.schema = schema
        self.table = f"{quote_schema(schema)}.outbox"
        self.channel = f"croupier_outbox_{schema}"
        digest = hashlib.sha256(self.table.encode()).digest()
        self.lock_key = int.from_bytes(digest[:8], "big", signed=True)

    def create_table_sql(self) -> str:
        """DDL (idempotent), for a service's migrations or `create_table`."""
        return (
            f"CREATE TABLE IF NOT EXISTS {self.table} ("
            " id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
            " topic text NOT NULL,"
            " key text NOT NULL,"
            " envelope bytea NOT NULL,"
            " created_at timestamptz NOT NULL DEFAULT now(),"
            " published_at timestamptz);"
            f" CREATE INDEX IF NOT EXISTS outbox_unpublished ON {self.table} (id)"
            " WHERE published_at IS NULL"
        )

    async def create_table(self, connection: Any) -> None:
        await connection.execute(self.create_table_sql())

    async def add(self, connection: Any, topic: str, envelope: Envelope) -> int:
        """Queue `envelope` for `topic` in the caller's open transaction; return the row id."""
        if not connection.is_in_transaction():
            raise OutboxError(
                "Outbox.add must run inside the transaction that makes the state change"
            )
        row_id: int = await connection.fetchval(
            f"INSERT INTO {self.table} (topic, key, envelope) VALUES ($1, $2, $3) RETURNING id",
            topic,
            envelope.subject,
            envelope.SerializeToString(),
        )
        await connection.execute("SELECT pg_notify($1, '')", self.channel)
        return row_id

    async def add_many(self, connection: Any, topic: str, envelopes: Sequence[Envelope]) -> None:
        """`add` for many envelopes in one statement (their rows in the given order)."""
        if not envelopes:
            return
        if not connection.is_in_transaction():
            raise OutboxError(
                "Outbox.add_many must run inside the transaction that makes the state change"
            )
        await connection.execute(
            f"INSERT INTO {self.table} (topic, key, envelope)"
            " SELECT $1, key, envelope FROM unnest($2::text[], $3::bytea[])"
            " WITH ORDINALITY AS u(key, envelope, n) ORDER BY n",
            topic,
            [envelope.subject for envelope in envelopes],
            [envelope.SerializeToString() for envelope in envelopes],
        )
        await connection.execute("SELECT pg_notify($1, '')", self.channel)

    async def unpublished(self, connection: Any) -> int:
        """How many committed rows still wait for the relay (for tests)."""
        count, _ = await self.backlog(connection)
        return count

    async def backlog(self, connection: Any) -> tuple[int, float]:
        """How many committed rows still wait for the relay, and the oldest one's age in
        seconds (0 when none waits)."""
        row = await connection.fetchrow(
            "SELECT count(*) AS waiting,"
            " coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest"
            f" FROM {self.table} WHERE published_at IS NULL"
        )
        return int(row["waiting"]), float(row["oldest"])


class OutboxRelay:
    """Publishes committed outbox rows through the bus. `async with` or start/stop."""

    def __init__(
        self,
        *,
        pool: asyncpg.Pool,
        outbox: Outbox,
        bus: EventBus,
        batch_size: int = 100,
        poll_interval_seconds: float = 0.5,
        keep_published_seconds: float = 24 * 3600,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be positive")
        if keep_published_seconds < 0:
            raise ValueError("keep_published_seconds must not be negative")
        self._pool = pool
        self._outbox = outbox
        self._bus = bus
        self._batch_size = batch_size
        self._poll_interval_seconds = poll_interval_seconds
        self._keep_published_seconds = keep_published_seconds
        self._next_forget = 0.0
        self._next_measure = 0.0
        self._backlog = OUTBOX_BACKLOG.labels(outbox.schema)
        self._oldest = OUTBOX_OLDEST_SECONDS.labels(outbox.schema)
        self._wake = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self._listener: Any = None

    async def relay_once(self) -> int:
        """Publish one batch of unpublished rows; return how many were published.

        Returns 0 if there is nothing to do or another relay holds the outbox right now.
        """
        table = self._outbox.table
        async with self._pool.acquire() as connection, connection.transaction():
            if not await connection.fetchval(
                "SELECT pg_try_advisory_xact_lock($1)", self._outbox.lock_key
            ):
                return 0
            rows = await connection.fetch(
                f"SELECT id, topic, envelope FROM {table} WHERE published_at IS NULL"
                " ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED",
                self._batch_size,
            )
            if not rows:
                return 0
            await self._bus.publish_many(
                [(row["topic"], Envelope.FromString(row["envelope"])) for row in rows]
            )
            await connection.execute(
                f"UPDATE {table} SET published_at = now() WHERE id = ANY($1::bigint[])",
                [row["id"] for row in rows],
            )
        return len(rows)

    async def forget_published(self) -> int:
        """Delete up to `_FORGET_AT_MOST` rows published more than `keep_published_seconds`
        ago, oldest first; return how many."""
        table = self._outbox.table
        async with self._pool.acquire() as connection:
            status: str = await connection.execute(
                f"DELETE FROM {table} WHERE id IN (SELECT id FROM {table}"
                " WHERE published_at < now() - make_interval(secs => $1)"
                " ORDER BY id LIMIT $2)",
                self._keep_published_seconds,
                _FORGET_AT_MOST,
            )
        return int(status.rsplit(" ", 1)[-1])

    async def start(self) -> None:
        if self._task is not None:
            return
        listener = await self._pool.acquire()
        try:
            await listener.add_listener(self._outbox.channel, self._on_notify)
        except BaseException:  # a failure or a cancellation (a stop while connecting)
            await self._pool.release(listener)
            raise
        self._listener = listener
        self._task = asyncio.create_task(self._run(), name=f"outbox-relay:{self._outbox.table}")
        self._task.add_done_callback(self._on_done)

    async def stop(self) -> None:
        """Finish the batch in hand and stop. Safe to call twice."""
        if self._task is None:
            return
        task, self._task = self._task, None
        self._stopping = True
        self._wake.set()
        listener, self._listener = self._listener, None
        try:
            await asyncio.gather(task, return_exceptions=True)
            await listener.remove_listener(self._outbox.channel, self._on_notify)
        finally:
            # Given back even when the stop is cancelled or the connection broke: a pool
            # waits for every connection before it closes.
            await self._pool.release(listener)

    async def __aenter__(self) -> OutboxRelay:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()

    def _on_done(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            _log.error("outbox relay of %s died", self._outbox.table, exc_info=task.exception())

    async def _forget_now_and_then(self) -> None:
        now = asyncio.get_running_loop().time()
        if now < self._next_forget:
            return
        self._next_forget = now + _FORGET_EVERY_SECONDS
        try:
            await self.forget_published()
        except Exception:  # noqa: BLE001 - retried at the next turn; publishing goes on
            _log.exception("deleting old published rows of %s failed", self._outbox.table)

    async def measure_now_and_then(self) -> None:
        """Set the backlog gauges, at most every `_MEASURE_EVERY_SECONDS`."""
        now = asyncio.get_running_loop().time()
        if now < self._next_measure:
            return
        self._next_measure = now + _MEASURE_EVERY_SECONDS
        try:
            async with self._pool.acquire() as connection:
                waiting, oldest = await self._outbox.backlog(connection)
        except Exception:  # noqa: BLE001 - the database is down: the relay's own log says so
            return
        self._backlog.set(waiting)
        self._oldest.set(oldest)

    def _on_notify(self, *_: object) -> None:
        self._wake.set()

    async def _run(self) -> None:
        while not self._stopping:
            self._wake.clear()
            await self.measure_now_and_then()
            try:
                published = await self.relay_once()
            except Exception:  # noqa: BLE001 - database or broker trouble: the rows stay unpublished
                _log.exception("outbox relay of %s failed; retrying", self._outbox.table)
                await asyncio.sleep(_ERROR_BACKOFF_SECONDS)
                continue
            if published == self._batch_size:
                continue  # more is probably waiting
            await self._forget_now_and_then()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._poll_interval_seconds)
