"""Helpers the table tests share: a deterministic clock and seeds, a random joker bot, a
table host served over gRPC in process, waiting for a condition, a refused call's status,
the entries of an in-memory log, the settlement requests published on a bus."""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import grpc
import pytest

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.adapters.sink import WALLET_REQUESTS_TOPIC
from croupier.table.bootstrap import table_service
from croupier.table.core.log_entry import LogEntry
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.v1 import table_pb2, table_pb2_grpc


class FakeClock:
    """A host's `now_ms`; passed as its `call_later` too, the host's clocks and windows run
    only when the test moves time (`advance`), so no timing depends on the machine's load."""

    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self.now = start_ms
        self._timers: list[_FakeTimer] = []

    def __call__(self) -> int:
        return self.now

    def call_later(self, delay_ms: int, callback: Callable[[], None]) -> _FakeTimer:
        timer = _FakeTimer(self.now + delay_ms, callback)
        self._timers.append(timer)
        self._fire_due()
        return timer

    def advance(self, ms: int) -> None:
        """Move time on by `ms`: the callbacks that fall due run (soon, on the loop)."""
        self.now += ms
        self._fire_due()

    def _fire_due(self) -> None:
        # Cancelled timers go at once: a long run cancels most of the timers it sets, and
        # keeping them made every call scan them all (quadratic over a tournament).
        live = [t for t in self._timers if not t.cancelled]
        due = sorted((t for t in live if t.at_ms <= self.now), key=lambda t: t.at_ms)
        self._timers = [t for t in live if t.at_ms > self.now]
        for timer in due:
            asyncio.get_running_loop().call_soon(timer.callback)


@dataclass
class _FakeTimer:
    at_ms: int
    callback: Callable[[], None]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


class Seeds:
    """Deterministic 32-byte seeds, so a test's deals repeat."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.count = 0

    def __call__(self) -> bytes:
        self.count += 1
        return hashlib.sha256(f"{self.label}/{self.count}".encode()).digest()


def random_joker_action(legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random legal action from a joker player's `legal` view."""
    (kind,) = legal["actions"]
    if kind == "trump":
        return {"action": "trump", "suit": rng.choice(legal["suits"])}
    if kind == "bid":
        return {"action": "bid", "tricks": rng.choice(legal["tricks"])}
    card = rng.choice(legal["cards"])
    action: dict[str, Any] = {"action": "play", "card": card}
    if card.startswith("X"):
        action["joker"] = rng.choice(legal["joker"])
        if "suits" in legal:
            action["suit"] = rng.choice(legal["suits"])
    return action


@dataclass
class ServedHost:
    """A table host behind a real gRPC server in this process: its `stub` (typed Any: the
    generated aio stub is typed as the sync one), its command log and its bus."""

    host: TableHost
    stub: Any
    log: Any
    bus: Any


@asynccontextmanager
async def serve_host(host: TableHost, log: Any, bus: Any) -> AsyncIterator[ServedHost]:
    """Start `host` (built on `log` and the started `bus`) and serve it on a free port; the
    host and the bus stop with the server."""
    await host.start()
    server = ServiceHost(
        settings=ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0),
        services=[table_service(host)],
        on_stop=[host.stop, bus.stop],
        serve_metrics_endpoint=False,
    )
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            yield ServedHost(host, table_pb2_grpc.TableEngineStub(channel), log, bus)
    finally:
        await server.stop()


@asynccontextmanager
async def served_memory_host(
    seeds: str = "", clock: FakeClock | None = None, **host_options: Any
) -> AsyncIterator[ServedHost]:
    """Every game's host on an in-memory log and bus, served over gRPC; with `seeds`, known
    seeds; with `clock`, on its time (the host's clocks run only when the test moves it)."""
    bus = InMemoryBus()
    await bus.start()
    log = InMemoryCommandLog()
    if seeds:
        host_options["seeds"] = Seeds(seeds)
    if clock is not None:
        host_options.update(now_ms=clock, call_later=clock.call_later)
    host_options.setdefault("engines", load_engines())
    host = TableHost(command_log=log, publisher=bus, **host_options)
    async with serve_host(host, log, bus) as served:
        yield served


@asynccontextmanager
async def served_table_host(
    seeds: str = "", engines: dict[str, Any] | None = None
) -> AsyncIterator[Any]:
    """`served_memory_host`'s stub alone (every game, unless `engines` names others)."""
    host_options: dict[str, Any] = {"engines": engines} if engines else {}
    async with served_memory_host(seeds, **host_options) as served:
        yield served.stub


async def until(condition: Callable[[], bool], seconds: float = 20.0) -> None:
    """Wait until `condition()` holds (the host works in the background); fail after
    `seconds`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        assert loop.time() < deadline, "timed out waiting"
        await asyncio.sleep(0.005)


async def status_of(call: Any) -> tuple[grpc.StatusCode, str]:
    """The status code and details of a gRPC call that must be refused."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value.code(), caught.value.details() or ""


async def logged_entries(log: InMemoryCommandLog) -> list[LogEntry]:
    """Every entry of every table in `log`, in order."""
    return [entry async for table in log.replay() for entry in table.entries]


def settlements(bus: InMemoryBus, table_id: str) -> list[table_pb2.SettlementRequested]:
    """The settlement requests the host published for `table_id`, in order."""
    found = []
    for message in bus.messages(WALLET_REQUESTS_TOPIC):
        envelope = Envelope.FromString(message.value or b"")
        if envelope.subject != table_id or envelope.type != "wallet.settlement_requested":
            continue
        settlement = table_pb2.SettlementRequested()
        assert envelope.payload.Unpack(settlement)
        found.append(settlement)
    return found
