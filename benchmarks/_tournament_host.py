"""What the tournament benchmarks through the director share (`rummy_tournament`,
`poker_tournament`): the real table host in process on an in-memory command log and bus
with known seeds and a clock that stands still, the director's simulated clock, and the
director's `TableHost` port passed through to the host while recording what it opened.
Not a benchmark itself (the leading underscore keeps it out of `make bench`)."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from croupier.game import JSON
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.tournament.adapters.tables import InProcessTableHost
from croupier.tournament.service.ports import HandTable, RoundTable

HOST_SEEDS = "tournament-benchmark"


class Timed:
    """A function counted and timed where the core calls it."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.calls = 0
        self.seconds = 0.0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return self.function(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - started
            self.calls += 1


class NoTimers:
    """The host's `now_ms` and `call_later`: time stands still, so no turn clock runs out
    (the bots act at once) and no result depends on the machine's speed."""

    def __call__(self) -> int:
        return 1_700_000_000_000

    def call_later(self, delay_ms: int, callback: Callable[[], None]) -> NoTimers:
        return self

    def cancel(self) -> None:
        """A timer that never fires has nothing to cancel."""


class SimulatedClock:
    """The director's clock: moved by the games played, never by the machine."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def new_host() -> tuple[TableHost, InMemoryBus]:
    """A table host (not started) and its bus; two hosts deal the same games to the
    same tables opened in the same order."""
    counter = itertools.count(1)
    timers = NoTimers()
    bus = InMemoryBus()
    host = TableHost(
        engines=load_engines(),
        command_log=InMemoryCommandLog(),
        publisher=bus,
        seeds=lambda: hashlib.sha256(f"{HOST_SEEDS}/{next(counter)}".encode()).digest(),
        now_ms=timers,
        call_later=timers.call_later,
    )
    return host, bus


@dataclass
class Recorder:
    """The director's `TableHost` port, passed through to the host in process: the
    rounds and hands it opens, in order, for the bots and for the peer."""

    tables: InProcessTableHost
    opened_games: list[RoundTable | HandTable] = field(default_factory=list)
    opened: asyncio.Queue[str] = field(default_factory=asyncio.Queue)

    async def play_round(self, round_table: RoundTable) -> str:
        return self._record(round_table, await self.tables.play_round(round_table))

    async def play_hand(self, hand: HandTable) -> str:
        return self._record(hand, await self.tables.play_hand(hand))

    def _record(self, game: RoundTable | HandTable, table_id: str) -> str:
        self.opened_games.append(game)
        self.opened.put_nowait(table_id)
        return table_id


async def open_alone(
    host: TableHost, game: str, options: JSON, key: str, stacks: tuple[tuple[str, int], ...]
) -> str:
    """The peer's table: opened, seated and closed on the host directly (what the
    director's adapter asks, without it), so that the host deals it."""
    table_id = await host.open_table(game, options, None, request_key=key)
    for seat, (player, stack) in enumerate(stacks):
        await host.seat(table_id, player, seat, stack)
    await host.close(table_id)
    return table_id
