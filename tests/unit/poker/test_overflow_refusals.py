"""Amounts past `croupier.game.limits` through the gRPC TableEngine service (in-memory log
and bus): the issue's overflow. A 2^63 - 1 top-up on a 500-chip stack was accepted, the
next fold answered INTERNAL (though applied) and every view in the default or protobuf
format answered INTERNAL from then on. Now such values are INVALID_ARGUMENT, nothing is
logged (the version is unchanged), and the table keeps working for everyone."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest

from croupier.game.limits import MAX_AMOUNT
from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import table_pb2
from tests.support.table import served_table_host

pytestmark = pytest.mark.timeout(60)
Stub = Any  # the generated aio stub is typed as the sync one
INT64_MAX = 2**63 - 1
PLAYERS = ("ann", "bob", "cat")
FORMATS = (
    table_pb2.VIEW_FORMAT_UNSPECIFIED,
    table_pb2.VIEW_FORMAT_PROTO,
    table_pb2.VIEW_FORMAT_JSON,
)


async def view(stub: Stub, table_id: str, player: str, fmt: int = 0) -> table_pb2.TableView:
    request = table_pb2.GetViewRequest(table_id=table_id, player_id=player, view_format=fmt)
    result: table_pb2.TableView = (await stub.GetView(request)).view
    return result


async def invalid(call: Any) -> str:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, caught.value.details()
    return caught.value.details() or ""


async def test_out_of_bounds_options_are_refused_at_open() -> None:
    async with served_table_host() as stub:
        for options in ({"blinds": [1, 10**500]}, {"big_blind": str(INT64_MAX)}):
            request = table_pb2.OpenTableRequest(game="poker", options_json=json.dumps(options))
            assert "must be between 0 and" in await invalid(stub.OpenTable(request))
        proto = poker_pb2.Options(small_blind=1, big_blind=INT64_MAX)
        request = table_pb2.OpenTableRequest(options=table_pb2.GameOptions(poker=proto))
        details = await invalid(stub.OpenTable(request))
        assert details == f"options.big_blind must be between 0 and {MAX_AMOUNT}, got {INT64_MAX}"


async def test_an_int64_top_up_is_refused_and_the_table_keeps_working() -> None:
    async with served_table_host("grpc-bounds") as stub:
        options = json.dumps({"variant": "nlhe", "blinds": [1, 2]})
        request = table_pb2.OpenTableRequest(game="poker", options_json=options)
        request.clock.turn_seconds = 3600
        table_id = (await stub.OpenTable(request)).table_id
        for number, player in enumerate(PLAYERS):
            await stub.SeatPlayer(
                table_pb2.SeatPlayerRequest(
                    table_id=table_id, player_id=player, seat=number, stack=500
                )
            )
        huge = table_pb2.SeatPlayerRequest(
            table_id=table_id, player_id="dan", seat=3, stack=INT64_MAX
        )
        assert (await invalid(stub.SeatPlayer(huge))).startswith("stack must be between 0 and")
        before = await view(stub, table_id, "")
        actor = json.loads(before.view_json)["hand"]["to_act"]
        top_up = table_pb2.ActRequest(
            table_id=table_id,
            player_id=actor,
            command_id="top-up",
            action_json=json.dumps({"action": "top_up", "amount": INT64_MAX}),
        )
        details = await invalid(stub.Act(top_up))
        assert details.startswith("the stack after the top-up must be between 0 and")
        assert (await view(stub, table_id, "")).version == before.version  # nothing logged
        fold = poker_pb2.Action(kind=poker_pb2.ACTION_KIND_FOLD)
        await stub.Act(
            table_pb2.ActRequest(
                table_id=table_id,
                player_id=actor,
                command_id="fold",
                action=table_pb2.GameAction(poker=fold),
            )
        )
        for player in ("", *PLAYERS):
            for fmt in FORMATS:
                seen = await view(stub, table_id, player, fmt)
                assert seen.version > before.version  # the fold was logged
