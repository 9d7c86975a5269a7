"""Helpers the table tests share: a deterministic clock and seeds, a random joker bot, and
a table host served over gRPC in process."""

from __future__ import annotations

import hashlib
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc

from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.table.bootstrap import table_service
from croupier.table.commandlog import InMemoryCommandLog
from croupier.table.games import load_engines
from croupier.table.host import TableHost
from croupier.table.v1 import table_pb2_grpc


class FakeClock:
    def __init__(self, start_ms: int = 1_700_000_000_000) -> None:
        self.now = start_ms

    def __call__(self) -> int:
        return self.now


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
