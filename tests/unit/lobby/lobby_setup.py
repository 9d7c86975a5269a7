"""The lobby's use cases on in-memory adapters, driving a real table host in this process
(every game's engine, an in-memory command log and bus), with a clock the test steps."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from croupier.kit.bus.memory import InMemoryBus
from croupier.lobby.adapters.host_local import LocalTableHost
from croupier.lobby.adapters.memory import InMemoryRepository
from croupier.lobby.core.matchmaker import MatchmakerSettings
from croupier.lobby.service.accounts import Accounts
from croupier.lobby.service.matchmaking import Matchmaking
from croupier.lobby.service.ratings import Ratings
from croupier.lobby.service.tables import Tables
from croupier.lobby.service.waiting import WaitingLists
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost

START = datetime(2026, 3, 1, 12, tzinfo=UTC)
HOLD = timedelta(seconds=30)
SETTINGS = MatchmakerSettings(widen_after=timedelta(seconds=10), ttl=timedelta(minutes=5))


class SteppedClock:
    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def step(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@dataclass
class Lobby:
    host: TableHost
    bus: InMemoryBus
    repository: InMemoryRepository
    clock: SteppedClock
    tables: Tables
    matchmaking: Matchmaking
    accounts: Accounts
    ratings: Ratings
    waiting: WaitingLists


@asynccontextmanager
async def lobby() -> AsyncIterator[Lobby]:
    bus = InMemoryBus()
    await bus.start()
    host = TableHost(command_log=InMemoryCommandLog(), publisher=bus, engines=load_engines())
    await host.start()
    repository = InMemoryRepository()
    clock = SteppedClock()
    codes = (f"code{n}" for n in itertools.count(1))
    tables = Tables(
        repository=repository,
        host=LocalTableHost(host),
        clock=clock,
        codes=lambda: next(codes),
        hold_for=HOLD,
    )
    ratings = Ratings(repository)
    matchmaking = Matchmaking(
        repository=repository, tables=tables, clock=clock, settings=SETTINGS, ratings=ratings
    )
    try:
        yield Lobby(
            host,
            bus,
            repository,
            clock,
            tables,
            matchmaking,
            Accounts(repository),
            ratings,
            WaitingLists(repository=repository, tables=tables, clock=clock),
        )
    finally:
        await host.stop()
        await bus.stop()
