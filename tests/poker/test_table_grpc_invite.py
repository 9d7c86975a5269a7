"""Private poker tables through the gRPC host: the invitation code admits (seed 002 §6)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest

from croupier.kit.bus.memory import InMemoryBus
from croupier.kit.server import ServiceHost
from croupier.kit.settings import ServerSettings
from croupier.table.bootstrap import build_host, table_service
from croupier.table.commandlog import InMemoryCommandLog
from croupier.table.v1 import table_pb2, table_pb2_grpc


@pytest.fixture
async def stub() -> AsyncIterator[table_pb2_grpc.TableEngineStub]:
    bus = InMemoryBus()
    await bus.start()
    host = build_host(InMemoryCommandLog(), bus)
    await host.start()
    server = ServiceHost(
        settings=ServerSettings(grpc_host="127.0.0.1", grpc_port=0, metrics_port=0),
        services=[table_service(host)],
        on_stop=[host.stop, bus.stop],
        serve_metrics_endpoint=False,
    )
    await server.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        yield table_pb2_grpc.TableEngineStub(channel)
    await server.stop()


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
