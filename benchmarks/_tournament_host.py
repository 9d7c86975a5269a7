"""What the tournament benchmarks through the director share (`rummy_tournament`,
`poker_tournament`): the real table host in process on an in-memory command log and bus
with known seeds and a clock that stands still, the director's simulated clock, and the
director's `TableHost` port passed through to the host while recording what it opened.
Not a benchmark itself (the leading underscore keeps it out of `make bench`).

YIELD: in both runs of a benchmark the bots give the event loop a turn after every game
(`asyncio.sleep(0)`), as a host serving calls one at a time would: otherwise the host's
events wait unpublished (`croupier.table.service.outgoing` sends them from a task) for
as long as the bots never yield, and the run that yields less (the host alone, which
never waits for a director) paid 13 % more CPU for the backlog."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from croupier.game import JSON
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.tournament.adapters.memory import InMemoryRepository
from croupier.tournament.adapters.tables import InProcessTableHost
from croupier.tournament.service.events import Recorded
from croupier.tournament.service.model import TournamentRecord
from croupier.tournament.service.ports import HandTable, RoundTable

HOST_SEEDS = "tournament-benchmark"
#: The longest the bots wait for the director to save something: longer is a bug.
DIRECTOR_TIMEOUT_SECONDS = 60.0
#: Event-loop turns the host may take to play a turn whose clock ran out.
MAX_LOOP_TURNS = 1_000


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


@dataclass
class Timer:
    at_ms: int
    callback: Callable[[], None]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


class StillClock:
    """The host's `now_ms` and `call_later`: time stands still unless a benchmark moves
    it (`run_out`), so no turn clock runs out by itself (the bots act at once) and no
    result depends on the machine's speed. A wait of no time runs at once."""

    def __init__(self) -> None:
        self.now = 1_700_000_000_000

    def __call__(self) -> int:
        return self.now

    def call_later(self, delay_ms: int, callback: Callable[[], None]) -> Timer | asyncio.Handle:
        if delay_ms <= 0:
            return asyncio.get_running_loop().call_soon(callback)
        return Timer(self.now + delay_ms, callback)

    async def run_out(self, host: TableHost, table_id: str) -> None:
        """The table's turn clock runs out once: time moves to its deadline and the host
        plays the player's turn as the auto-player (rules 45-46: a round whose players
        are all automatic for 5 minutes is cancelled, fees back)."""
        timer = host._table(table_id).timer
        if not isinstance(timer, Timer):  # due now (an automatic player's turn): queued
            await asyncio.sleep(0)
            return
        self.now = max(self.now, timer.at_ms)
        timer.callback()
        for _ in range(MAX_LOOP_TURNS):
            if host._table(table_id).timer is not timer:
                return  # the timeout was played and the clock armed again
            await asyncio.sleep(0)
        raise AssertionError(f"{table_id}: the host did not play the turn that ran out")


class SimulatedClock:
    """The director's clock: moved by the games played, never by the machine."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def new_host(seeds: str = HOST_SEEDS) -> tuple[TableHost, InMemoryBus, StillClock]:
    """A table host (not started), its bus and clock; two hosts with the same `seeds`
    deal the same games to the same tables opened in the same order."""
    counter = itertools.count(1)
    timers = StillClock()
    bus = InMemoryBus()
    host = TableHost(
        engines=load_engines(),
        command_log=InMemoryCommandLog(),
        publisher=bus,
        seeds=lambda: hashlib.sha256(f"{seeds}/{next(counter)}".encode()).digest(),
        now_ms=timers,
        call_later=timers.call_later,
    )
    return host, bus, timers


@dataclass
class Recorder:
    """The director's `TableHost` port, passed through to the host in process: the
    rounds and hands it opens, in order, for the bots and for the peer."""

    tables: InProcessTableHost
    opened_games: list[RoundTable | HandTable] = field(default_factory=list)
    opened: asyncio.Queue[tuple[str, RoundTable | HandTable]] = field(default_factory=asyncio.Queue)
    """The host's table of each game opened, with the game: for the bots to play."""

    async def play_round(self, round_table: RoundTable) -> str:
        return self._record(round_table, await self.tables.play_round(round_table))

    async def play_hand(self, hand: HandTable) -> str:
        return self._record(hand, await self.tables.play_hand(hand))

    def _record(self, game: RoundTable | HandTable, table_id: str) -> str:
        self.opened_games.append(game)
        self.opened.put_nowait((table_id, game))
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


class SignallingRepository(InMemoryRepository):
    """The director's in-memory repository, telling the bots when it saved: they wait
    for it (the host publishes a game's end a moment after it, in a batch) without
    spinning the event loop, which would count as the director's CPU."""

    def __init__(self) -> None:
        super().__init__()
        self.saved = asyncio.Event()

    async def save(self, record: TournamentRecord, events: Sequence[Recorded]) -> None:
        await super().save(record, events)
        self.saved.set()

    async def next_save(self) -> None:
        """Until the director saves again (`saved` cleared by the caller before it looked
        at what was saved)."""
        await asyncio.wait_for(self.saved.wait(), DIRECTOR_TIMEOUT_SECONDS)
