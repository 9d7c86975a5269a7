"""Private poker tables through the gRPC host: the invitation code admits (seed 002 §6)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from croupier.table.v1 import table_pb2, table_pb2_grpc
from tests.support.table import served_table_host


@pytest.fixture
async def stub() -> AsyncIterator[Any]:
    async with served_table_host() as client:
        yield client


async def test_private_table_seats_the_holder_of_the_code_only(
    stub: table_pb2_grpc.TableEngineStub,
) -> None:
    options = '{"variant": "nlhe", "blinds": [1, 2], "invite_code": "ROYAL-42"}'
    table_id = (
        await stub.OpenTable(table_pb2.OpenTableRequest(game="poker", options_json=options))
    ).table_id
    seated = await stub.SeatPlayer(
        table_pb2.SeatPlayerRequest(
            table_id=table_id, player_id="ana", seat=0, stack=200, invite_code="ROYAL-42"
        )
    )
    assert "ana" in seated.view.seated
    for code in ("", "WRONG"):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.SeatPlayer(
                table_pb2.SeatPlayerRequest(
                    table_id=table_id, player_id="bob", seat=1, stack=200, invite_code=code
                )
            )
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert refused.value.details() == "this private table is for invited players only"
