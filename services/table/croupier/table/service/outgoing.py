"""Committed commands' public events on their way to the bus, in order, off the caller's
path."""

from __future__ import annotations

import asyncio

import structlog

from croupier.table.adapters.sink import public_events
from croupier.table.core.log_entry import LogEntry
from croupier.table.core.table_state import StepOutcome
from croupier.table.ports import Publisher
from croupier.table.service.background import Background, pause_before_retry
from croupier.table.service.tables import HostedTable

log = structlog.get_logger("croupier.table.host")

# The events publisher lets a batch form for this long before each publish: one produce
# request carries many commands' events (a request per command cost the loop ~0.2 ms per
# command in the client's protocol code, and the broker its share). Events are not on
# the caller's path; money requests do not wait (`MoneySender.ask_wallet`).
EVENTS_GATHER_SECONDS = 0.02


class Outgoing:
    def __init__(self, publisher: Publisher, background: Background) -> None:
        self._publisher = publisher
        self._background = background
        # Committed commands whose public events are not published yet (every table, in
        # order), and the task publishing them.
        self._queue: list[tuple[HostedTable, LogEntry, StepOutcome]] = []
        self.publishing: asyncio.Task[None] | None = None

    def publish(self, table: HostedTable, entry: LogEntry, outcome: StepOutcome) -> None:
        """Publish a committed command's public events in order, without making the caller
        wait: the command stands whatever happens on the bus. One task drains the queue
        of every table (what piles up meanwhile, for at least EVENTS_GATHER_SECONDS, goes
        out in one batch, built after the callers were answered) and retries a failed
        send (ids are stable: consumers drop copies). Events still queued when a host dies
        are lost; the command log is not, and money requests go out before the caller is
        answered (`MoneySender.ask_wallet`)."""
        self._queue.append((table, entry, outcome))
        if self.publishing is None or self.publishing.done():
            self.publishing = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        while self._queue:
            if not self._background.stopping:
                await asyncio.sleep(EVENTS_GATHER_SECONDS)
            batch = list(self._queue)
            messages = [
                message
                for table, entry, outcome in batch
                for message in public_events(
                    table.state.table_id, table.state.game, entry.index, outcome.events
                )
            ]
            try:
                await self._publisher.publish_many(messages)
            except Exception as exc:  # noqa: BLE001 - any bus failure is retried
                log.error("table events not published; retrying", error=str(exc))
                await pause_before_retry()
                continue
            del self._queue[: len(batch)]
