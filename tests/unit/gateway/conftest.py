"""A gateway in process: a poker table on an in-memory table host beside it (p0 and p1
seated), the in-memory wallet and tournament director behind its ports, a clock the test
moves."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from croupier.game import ClockSettings
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.bootstrap import table_service
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from tests.support.games import GAMES
from tests.support.gateway import ServedGateway, served_gateway
from tests.support.table import Seeds
from tests.unit.gateway.memory import MemoryTournaments, MemoryWallet

NOW = 1_800_000_000.0
HOUR = ClockSettings(turn_ms=3_600_000, reconnect_ms=3_600_000)
POKER = GAMES["poker"]


class Clock:
    """The gateway's clock (seconds since the epoch); tests move it."""

    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


@dataclass
class World:
    gateway: ServedGateway
    host: TableHost
    table_id: str
    wallet: MemoryWallet
    tournaments: MemoryTournaments
    clock: Clock

    def public(self) -> dict[str, Any]:
        return dict(self.host.view(self.table_id, "").view)

    def to_act(self) -> str:
        player = POKER.to_act(self.public())
        assert player is not None
        return player


@pytest.fixture
async def world() -> AsyncIterator[World]:
    bus = InMemoryBus()
    await bus.start()
    host = TableHost(
        engines=load_engines(),
        command_log=InMemoryCommandLog(),
        publisher=bus,
        seeds=Seeds("gateway"),
    )
    await host.start()
    wallet = MemoryWallet({("p0", "CHIP"): 500})
    tournaments = MemoryTournaments()
    clock = Clock()
    try:
        table_id = await host.open_table("poker", json.loads(json.dumps(POKER.options)), HOUR)
        for seat, player in enumerate(POKER.players):
            await host.seat(table_id, player, seat, POKER.stack)
        async with served_gateway(
            beside=[table_service(host)], wallet=wallet, tournaments=tournaments, clock=clock
        ) as gateway:
            yield World(gateway, host, table_id, wallet, tournaments, clock)
    finally:
        await host.stop()
        await bus.stop()
