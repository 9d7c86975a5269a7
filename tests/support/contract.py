"""A table of each game on a table host the test holds (in-memory log and bus, the test's
clock), directly or served over gRPC in process, as the contract tests in
tests/unit/table/contract/ (and the Joker host tests) use it."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from croupier.game import ClockSettings
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.v1 import table_pb2
from tests.support.games import GameAtTable, open_over_grpc
from tests.support.table import FakeClock, Seeds, ServedHost, served_memory_host

BOTH = table_pb2.VIEW_FORMAT_UNSPECIFIED


@dataclass
class Table:
    """A table of one game on a served host, and the host's clock."""

    served: ServedHost
    table_id: str
    clock: FakeClock

    @property
    def stub(self) -> Any:
        return self.served.stub


@asynccontextmanager
async def served_table(
    game: GameAtTable, seated: int | None = None, **clock_seconds: int
) -> AsyncIterator[Table]:
    """A table of `game` with its first `seated` players (all), on a served host;
    `clock_seconds` as `open_over_grpc` takes them."""
    clock = FakeClock()
    async with served_memory_host(f"grpc-{game.name}", clock=clock) as served:
        table_id = await open_over_grpc(served.stub, game, seated=seated, **clock_seconds)
        yield Table(served, table_id, clock)


async def get_view(
    stub: Any, table_id: str, player: str = "", view_format: int = BOTH
) -> table_pb2.TableView:
    request = table_pb2.GetViewRequest(table_id=table_id, player_id=player, view_format=view_format)
    return (await stub.GetView(request)).view


def to_act(game: GameAtTable, view: table_pb2.TableView) -> str:
    player = game.to_act(json.loads(view.view_json))
    assert player is not None, f"the {game.name} table waits for nobody"
    return player


async def act_at_random(table: Table, game: GameAtTable, n: int) -> None:
    """A random legal action of the player to act; between hands, time moves on (a second
    at a time) until the next is dealt."""
    for _ in range(60):
        player = game.to_act(json.loads((await get_view(table.stub, table.table_id)).view_json))
        if player is not None:
            break
        table.clock.advance(1_000)
        await asyncio.sleep(0.01)
    assert player is not None, f"the {game.name} table waits for nobody"
    mine = json.loads((await get_view(table.stub, table.table_id, player)).view_json)
    action = game.legal_action(mine, random.Random(n))
    await table.stub.Act(
        table_pb2.ActRequest(
            table_id=table.table_id,
            player_id=player,
            command_id=f"random-{n}",
            action_json=json.dumps(action),
        )
    )


LONG_TURN = ClockSettings(turn_ms=3_600_000)


def make_host(
    log: InMemoryCommandLog, bus: InMemoryBus, clock: FakeClock, label: str = "t"
) -> TableHost:
    return TableHost(
        engines=load_engines(), command_log=log, publisher=bus, now_ms=clock, seeds=Seeds(label)
    )


async def open_full_table(
    host: TableHost, game: GameAtTable, clock: ClockSettings = LONG_TURN
) -> str:
    table_id = await host.open_table(game.name, game.options, clock, request_key="k1")
    for seat, player in enumerate(game.players):
        await host.seat(table_id, player, seat, game.stack)
    return table_id


def waiting_for(host: TableHost, game: GameAtTable, table_id: str) -> str:
    to_act = game.to_act(host.view(table_id, "").view)
    assert to_act is not None, f"the {game.name} table waits for nobody"
    return to_act


async def play_random(
    host: TableHost, game: GameAtTable, table_id: str, actions: int, rng: random.Random
) -> None:
    for n in range(actions):
        to_act = waiting_for(host, game, table_id)
        action = game.legal_action(host.view(table_id, to_act).view, rng)
        await host.act(table_id, to_act, f"cmd-{rng.random()}-{n}", action)
