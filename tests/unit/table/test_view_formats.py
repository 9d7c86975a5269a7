"""`view_format`: an answer carries the view's protobuf form, its JSON form, or both."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from croupier.joker.engine import JokerEngine
from croupier.table.v1 import table_pb2
from tests.support.table import served_table_host

PLAYERS = ["giorgi", "nika", "ana", "levan"]
BOTH = table_pb2.VIEW_FORMAT_UNSPECIFIED
PROTO = table_pb2.VIEW_FORMAT_PROTO
JSON = table_pb2.VIEW_FORMAT_JSON


@pytest.fixture
async def stub() -> AsyncIterator[Any]:
    async with served_table_host() as client:
        yield client


async def open_table(stub: Any) -> str:
    response = await stub.OpenTable(table_pb2.OpenTableRequest(game="joker", options_json="{}"))
    for seat, player in enumerate(PLAYERS):
        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(table_id=response.table_id, player_id=player, seat=seat)
        )
    return str(response.table_id)


async def views(stub: Any, table_id: str, player: str) -> dict[int, table_pb2.TableView]:
    return {
        view_format: (
            await stub.GetView(
                table_pb2.GetViewRequest(
                    table_id=table_id, player_id=player, view_format=view_format
                )
            )
        ).view
        for view_format in (BOTH, PROTO, JSON)
    }


async def test_each_format_carries_its_form_only_and_the_same_content(stub: Any) -> None:
    table_id = await open_table(stub)
    by_format = await views(stub, table_id, "giorgi")
    both, proto, json_only = by_format[BOTH], by_format[PROTO], by_format[JSON]
    assert both.game.WhichOneof("game") == "joker" and both.view_json
    assert proto.game == both.game and proto.view_json == ""
    assert json_only.view_json == both.view_json and json_only.game.WhichOneof("game") is None
    for view in (proto, json_only):  # the rest of the view is the same
        assert (view.table_id, view.version, list(view.seated)) == (
            both.table_id,
            both.version,
            list(both.seated),
        )


async def test_act_seat_watch_and_reconnect_answer_in_the_asked_format(stub: Any) -> None:
    opened = await stub.OpenTable(table_pb2.OpenTableRequest(game="joker", options_json="{}"))
    table_id = opened.table_id
    seated = await stub.SeatPlayer(
        table_pb2.SeatPlayerRequest(table_id=table_id, player_id="giorgi", seat=0, view_format=JSON)
    )
    assert seated.view.view_json and seated.view.game.WhichOneof("game") is None
    for seat, player in enumerate(PLAYERS[1:], start=1):
        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(table_id=table_id, player_id=player, seat=seat)
        )
    stream = stub.WatchView(
        table_pb2.WatchViewRequest(table_id=table_id, player_id="nika", view_format=PROTO)
    )
    watched = await stream.read()
    assert watched.view.game.joker.to_act and watched.view.view_json == ""
    stream.cancel()

    to_act = watched.view.game.joker.to_act
    legal = (await views(stub, table_id, to_act))[PROTO].game.joker.legal
    acted = await stub.Act(
        table_pb2.ActRequest(
            table_id=table_id,
            player_id=to_act,
            command_id="c1",
            action_json=json.dumps({"action": "bid", "tricks": legal.tricks[0]}),
            view_format=PROTO,
        )
    )
    assert acted.view.game.WhichOneof("game") == "joker" and acted.view.view_json == ""
    back = await stub.Reconnect(
        table_pb2.ReconnectRequest(table_id=table_id, player_id="ana", view_format=JSON)
    )
    assert back.view.view_json and back.view.game.WhichOneof("game") is None


async def test_an_unknown_format_is_invalid_argument_and_changes_nothing(stub: Any) -> None:
    table_id = await open_table(stub)
    before = (await views(stub, table_id, "giorgi"))[BOTH]
    to_act = before.game.joker.to_act
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.Act(
            table_pb2.ActRequest(
                table_id=table_id,
                player_id=to_act,
                command_id="c1",
                action_json=json.dumps({"action": "bid", "tricks": 0}),
                view_format=table_pb2.ViewFormat.ValueType(7),
            )
        )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.details() == (
        "view_format 7 is not one of VIEW_FORMAT_UNSPECIFIED, VIEW_FORMAT_PROTO, VIEW_FORMAT_JSON"
    )
    after = (await views(stub, table_id, "giorgi"))[BOTH]
    assert (after.version, after.view_json, after.game) == (
        before.version,
        before.view_json,
        before.game,
    )


class UntypedJoker(JokerEngine):
    """Joker as a game whose view has no protobuf message (not a ProtoCodec)."""

    view_to_message = None  # type: ignore[assignment]


async def test_a_game_without_a_protobuf_view_answers_json_even_when_proto_is_asked() -> None:
    async with served_table_host(engines={"joker": UntypedJoker()}) as stub:
        table_id = await open_table(stub)
        proto = (await views(stub, table_id, "giorgi"))[PROTO]
    assert json.loads(proto.view_json)["hand"]["to_act"]
    assert proto.game.WhichOneof("game") is None
