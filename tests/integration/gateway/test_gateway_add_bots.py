"""`AddBots` through the gateway, on the lobby's PostgreSQL and a table host on Kafka: the
owner is the token's player, so only the table's owner asks bots for its seats; a count
beyond the free seats is INVALID_ARGUMENT, and a refused request wants no bot."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable

import grpc
import pytest

from croupier.gateway.v1 import gateway_pb2 as pb
from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import table_pb2
from tests.support.gateway import bearer
from tests.support.lobby_gateway import LobbyPlatform, lobby_gateway

SIX_MAX = table_pb2.GameOptions(
    poker=poker_pb2.Options(variant=poker_pb2.VARIANT_NLHE, small_blind=1, big_blind=2, seats=6)
)


@pytest.fixture
async def platform(
    kafka_bootstrap: str, postgres_dsn: str, unique: Callable[[str], str]
) -> AsyncIterator[LobbyPlatform]:
    async with lobby_gateway(kafka_bootstrap, postgres_dsn, unique("lobby_bots")) as platform:
        yield platform


async def test_only_the_tables_owner_asks_for_bots(platform: LobbyPlatform) -> None:
    stub = platform.gateway.stub
    opened = await stub.OpenTable(
        pb.OpenTableRequest(request_key="ana-bots", options=SIX_MAX, stack=100),
        metadata=bearer("ana", now=time.time()),
    )
    table_id = opened.table.table_id

    with pytest.raises(grpc.aio.AioRpcError) as not_owner:
        await stub.AddBots(
            pb.AddBotsRequest(table_id=table_id, count=2), metadata=bearer("bob", now=time.time())
        )
    assert not_owner.value.code() == grpc.StatusCode.PERMISSION_DENIED, not_owner.value.details()
    with pytest.raises(grpc.aio.AioRpcError) as too_many:
        await stub.AddBots(
            pb.AddBotsRequest(table_id=table_id, count=6), metadata=bearer("ana", now=time.time())
        )
    assert too_many.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "count is 1 to 5" in (too_many.value.details() or "")

    added = await stub.AddBots(
        pb.AddBotsRequest(table_id=table_id, count=2), metadata=bearer("ana", now=time.time())
    )
    assert (added.table.table_id, added.table.bots_wanted) == (table_id, 2)
