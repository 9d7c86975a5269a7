"""Where the director's use cases read and save tournaments: one lock per tournament in
this process, the record saved with its events numbered on, and watchers woken.

The registration use cases (`director`) and the rounds (`rounds`) share it, so one
tournament's changes run one at a time whichever use case makes them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Sequence
from dataclasses import replace

from croupier.game.limits import echo
from croupier.tournament.core.errors import NotFound
from croupier.tournament.service.events import Event, Recorded
from croupier.tournament.service.model import TournamentRecord
from croupier.tournament.service.ports import Clock, Repository, Unreadable

__all__ = ["WATCH_POLL_SECONDS", "Store"]

_LOCKS = 64
#: A watcher re-reads the stored events at least this often: another replica's events
#: reach it although no local save woke it.
WATCH_POLL_SECONDS = 1.0


class Store:
    def __init__(self, repository: Repository, clock: Clock) -> None:
        self.repository = repository
        self.clock = clock
        self._locks = [asyncio.Lock() for _ in range(_LOCKS)]
        self._saved = asyncio.Condition()

    def lock(self, tournament_id: str) -> asyncio.Lock:
        return self._locks[hash(tournament_id) % _LOCKS]

    async def load(self, tournament_id: str) -> TournamentRecord:
        record = await self.repository.get(tournament_id)
        if record is None:
            raise NotFound("unknown_tournament", f"no tournament {echo(tournament_id)}")
        return record

    async def save(self, changed: TournamentRecord, *events: Event) -> TournamentRecord:
        """Save `changed` (the read record with its changes) with `events`, numbered on;
        the record as saved."""
        now = self.clock()
        recorded = [
            Recorded(changed.tournament_id, changed.events + number, now, event)
            for number, event in enumerate(events, start=1)
        ]
        saved = replace(changed, events=changed.events + len(events), version=changed.version + 1)
        await self.repository.save(saved, recorded)
        async with self._saved:
            self._saved.notify_all()
        return saved

    async def void_unreadable(self, unreadable: Unreadable, event: Recorded) -> None:
        """Mark an unreadable tournament voided with `event` (`service.crash`)."""
        await self.repository.void_unreadable(unreadable, event)
        async with self._saved:
            self._saved.notify_all()

    async def watch(self, tournament_id: str, after: int) -> AsyncGenerator[Recorded, None]:
        """The events numbered above `after`, then each new one as it is saved."""
        await self.load(tournament_id)
        while True:
            events: Sequence[Recorded] = await self.repository.events_after(tournament_id, after)
            for event in events:
                yield event
                after = event.sequence
            if events:
                continue
            async with self._saved:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._saved.wait(), WATCH_POLL_SECONDS)
