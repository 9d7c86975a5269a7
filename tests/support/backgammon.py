"""Backgammon tests' builders (boards), its tables through the gRPC service (in-memory log
and bus) and on a host the test holds (its clock the test's when asked)."""

from __future__ import annotations

import json
import random
from contextlib import AbstractAsyncContextManager
from typing import Any

import grpc
import pytest

from croupier.backgammon.core.board import Board, Side
from croupier.backgammon.v1 import backgammon_pb2
from croupier.game import ClockSettings
from croupier.kit.bus.memory import InMemoryBus
from croupier.table.adapters.memory_log import InMemoryCommandLog
from croupier.table.core.log_entry import LogEntry
from croupier.table.games import load_engines
from croupier.table.service.host import TableHost
from croupier.table.service.money import Buyins
from croupier.table.v1 import table_pb2
from tests.support.table import FakeClock, Seeds, ServedHost, served_memory_host

PLAYERS = ("ann", "bob")


def side(points: dict[int | str, int]) -> Side:
    """A side from {own point: checkers}, 'bar' for the bar; the rest are borne off."""
    slots = [0] * 25
    for point, n in points.items():
        slots[24 if point == "bar" else int(point) - 1] = n
    assert sum(slots) <= 15
    return tuple(slots)


def board(mover: dict[int | str, int], opponent: dict[int | str, int]) -> Board:
    """gnubg board (opponent, mover), each side in its own numbering."""
    return (side(opponent), side(mover))


# ---- through the gRPC service ---------------------------------------------------

Stub = Any  # table_pb2_grpc.TableEngineAsyncStub exists only in the stubs
KIND = dict(backgammon_pb2.ActionKind.items())


def running_service(seeds: str = "bg") -> AbstractAsyncContextManager[ServedHost]:
    """The TableEngine gRPC service in this process, on the in-memory log and bus."""
    return served_memory_host(seeds)


async def open_table(stub: Stub, options: backgammon_pb2.Options, turn_seconds: int = 3600) -> str:
    request = table_pb2.OpenTableRequest(options=table_pb2.GameOptions(backgammon=options))
    request.clock.turn_seconds = turn_seconds
    table_id = (await stub.OpenTable(request)).table_id
    for seat, player in enumerate(PLAYERS):
        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(table_id=table_id, player_id=player, seat=seat)
        )
    return table_id


async def table_view(stub: Stub, table_id: str, player: str = "") -> table_pb2.TableView:
    return (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id, player_id=player))).view


async def public(stub: Stub, table_id: str) -> dict[str, Any]:
    view: dict[str, Any] = json.loads((await table_view(stub, table_id)).view_json)
    return view


_counter = iter(range(10**9))


def act_request(table_id: str, player: str, action: dict[str, Any] | backgammon_pb2.Action) -> Any:
    request = table_pb2.ActRequest(
        table_id=table_id, player_id=player, command_id=f"c{next(_counter)}"
    )
    if isinstance(action, backgammon_pb2.Action):
        request.action.backgammon.CopyFrom(action)
    else:
        request.action_json = json.dumps(action)
    return request


async def act(
    stub: Stub, table_id: str, player: str, action: dict[str, Any] | backgammon_pb2.Action
) -> table_pb2.TableView:
    return (await stub.Act(act_request(table_id, player, action))).view


async def snapshot(stub: Stub, table_id: str) -> list[tuple[int, str]]:
    views = [await table_view(stub, table_id, p) for p in ("", *PLAYERS)]
    return [(v.version, v.view_json) for v in views]


async def refused(
    stub: Stub, table_id: str, player: str, action: dict[str, Any] | backgammon_pb2.Action
) -> tuple[grpc.StatusCode, str]:
    """The refusal's status and message; the table must be exactly as before."""
    before = await snapshot(stub, table_id)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.Act(act_request(table_id, player, action))
    assert await snapshot(stub, table_id) == before
    return caught.value.code(), caught.value.details() or ""


async def roll_and_play(stub: Stub, table_id: str, rng: random.Random) -> None:
    """The player to act (at the start of a turn) rolls, then plays a legal play."""
    player = (await public(stub, table_id))["to_act"]
    mine = json.loads((await act(stub, table_id, player, {"action": "roll"})).view_json)
    if mine["phase"] == "moving" and mine["to_act"] == player:
        await act(
            stub, table_id, player, {"action": "move", "play": rng.choice(mine["legal"]["plays"])}
        )


async def first_play(stub: Stub, table_id: str) -> None:
    """The opening mover plays his first legal play."""
    view = await public(stub, table_id)
    assert view["phase"] == "moving"  # the opening roll is the first mover's
    player = view["to_act"]
    legal = json.loads((await table_view(stub, table_id, player)).view_json)["legal"]
    await act(stub, table_id, player, {"action": "move", "play": legal["plays"][0]})


# ---- on a host the test holds -----------------------------------------------------

USD_SINGLE = {"mode": "single", "stake": 100, "currency": "USD"}


async def logged(log: InMemoryCommandLog) -> list[LogEntry]:
    return [entry async for table in log.replay() for entry in table.entries]


async def started_host(
    label: str, now: FakeClock | None = None
) -> tuple[TableHost, InMemoryCommandLog, InMemoryBus]:
    """A host on `now` (its clocks run only when the test advances it), or on real time."""
    bus = InMemoryBus()
    await bus.start()
    log = InMemoryCommandLog()
    extra: dict[str, Any] = {} if now is None else {"now_ms": now, "call_later": now.call_later}
    host = TableHost(
        engines=load_engines(),
        command_log=log,
        publisher=bus,
        seeds=Seeds(label),
        buyins=Buyins(play_currencies=()),  # CHIP kept in the wallet: hands settle
        **extra,
    )
    await host.start()
    return host, log, bus


async def full_table(host: TableHost, options: dict[str, Any], clock: ClockSettings) -> str:
    table_id = await host.open_table("backgammon", options, clock)
    for seat, player in enumerate(PLAYERS):
        await host.seat(table_id, player, seat, 0)
    return table_id


def public_of(host: TableHost, table_id: str) -> dict[str, Any]:
    return host.view(table_id, "").view


async def play_first_move(host: TableHost, table_id: str) -> str:
    mover = public_of(host, table_id)["to_act"]
    legal = host.view(table_id, mover).view["legal"]
    await host.act(table_id, mover, "first", {"action": "move", "play": legal["plays"][0]})
    return str(mover)
