"""Presence comes from the seated player's own calls, never from somebody watching.

Anybody may open `WatchView` as any player (there is no authentication at the host; a
spectator, a second tab): closing such a stream unseated the player once his
reconnection window ran out. Now only `Disconnect` (the player's session ended) starts
the window, and `Reconnect` or an action of his stops it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import grpc
import pytest

from croupier.table.v1 import table_pb2
from tests.support.table import served_table_host

POKER = json.dumps({"variant": "nlhe", "blinds": [1, 2], "decision_seconds": 3600})
WINDOW = table_pb2.TableClock(turn_seconds=3600, reconnect_seconds=1)


async def poker_table(stub: Any) -> str:
    opened = await stub.OpenTable(
        table_pb2.OpenTableRequest(game="poker", options_json=POKER, clock=WINDOW)
    )
    for seat, player in enumerate(("ann", "bob")):
        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(
                table_id=opened.table_id, player_id=player, seat=seat, stack=100
            )
        )
    return str(opened.table_id)


async def public_view(stub: Any, table_id: str) -> table_pb2.TableView:
    return (await stub.GetView(table_pb2.GetViewRequest(table_id=table_id))).view


async def test_a_closed_watch_stream_leaves_the_player_seated_past_the_window() -> None:
    async with served_table_host("presence") as stub:
        table_id = await poker_table(stub)
        stream = stub.WatchView(table_pb2.WatchViewRequest(table_id=table_id, player_id="bob"))
        first = await stream.read()
        assert first.view.seated == ["ann", "bob"]
        stream.cancel()  # somebody watching as bob goes away
        await asyncio.sleep(1.5)  # past bob's 1 s reconnection window
        view = await public_view(stub, table_id)
        assert list(view.seated) == ["ann", "bob"] and list(view.disconnected) == []


async def test_reconnect_or_his_own_action_ends_the_absence() -> None:
    async with served_table_host("presence") as stub:
        table_id = await poker_table(stub)
        to_act = json.loads((await public_view(stub, table_id)).view_json)["hand"]["to_act"]
        for player in ("ann", "bob"):
            await stub.Disconnect(table_pb2.DisconnectRequest(table_id=table_id, player_id=player))
        await stub.Reconnect(
            table_pb2.ReconnectRequest(
                table_id=table_id, player_id=next(p for p in ("ann", "bob") if p != to_act)
            )
        )
        await stub.Act(
            table_pb2.ActRequest(
                table_id=table_id,
                player_id=to_act,
                command_id="c",
                action_json='{"action": "call"}',
            )
        )
        await asyncio.sleep(1.5)
        view = await public_view(stub, table_id)
        assert list(view.seated) == ["ann", "bob"] and list(view.disconnected) == []


async def test_only_a_seated_player_can_be_away() -> None:
    async with served_table_host("presence") as stub:
        table_id = await poker_table(stub)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.Disconnect(
                table_pb2.DisconnectRequest(table_id=table_id, player_id="mallory")
            )
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND
        assert list((await public_view(stub, table_id)).disconnected) == []
