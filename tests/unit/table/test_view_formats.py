"""`view_format`: an answer carries the view's protobuf form, its JSON form, or both."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

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


class UntypedJoker(JokerEngine):
    """Joker as a game whose view has no protobuf message (not a ProtoCodec)."""

    view_to_message = None  # type: ignore[assignment]


async def test_a_game_without_a_protobuf_view_answers_json_even_when_proto_is_asked() -> None:
    async with served_table_host(engines={"joker": UntypedJoker()}) as stub:
        table_id = await open_table(stub)
        proto = (await views(stub, table_id, "giorgi"))[PROTO]
    assert json.loads(proto.view_json)["hand"]["to_act"]
    assert proto.game.WhichOneof("game") is None
