"""Helpers the table tests share: a deterministic clock and seeds, a random joker bot, and
a table host served over gRPC in process."""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import grpc

from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.bootstrap import table_service
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.v1 import table_pb2_grpc


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
        due = sorted((t for t in self._timers if t.at_ms <= self.now), key=lambda t: t.at_ms)
        for timer in due:
            self._timers.remove(timer)
            if not timer.cancelled:
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


@asynccontextmanager
async def served_table_host(
    seeds: str = "", engines: dict[str, Any] | None = None
) -> AsyncIterator[Any]:
    """A table host with an in-memory log and bus behind a real gRPC server (every game,
    unless `engines` names others); yields the client stub (typed Any: the generated aio
    stub is typed as the sync one)."""
    bus = InMemoryBus()
    await bus.start()
    host = TableHost(
        engines=engines or load_engines(),
        command_log=InMemoryCommandLog(),
        publisher=bus,
        **({"seeds": Seeds(seeds)} if seeds else {}),
    )
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
            yield table_pb2_grpc.TableEngineStub(channel)
    finally:
        await server.stop()
