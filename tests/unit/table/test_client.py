"""The table host's gRPC client: the host's refusals come back as `croupier.game` kinds
with its message; any other status as the caller's `Unavailable`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from croupier.game import RuleBroken
from croupier.kit.errors import Unavailable
from croupier.table.client import TableHostClient
from croupier.table.v1 import table_pb2, table_pb2_grpc


class _Refusing(table_pb2_grpc.TableEngineServicer):
    """Refuses every CloseTable; leaves the other methods unimplemented."""

    async def CloseTable(self, request: Any, context: Any) -> Any:
        await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "the table is in play")


class _HostDown(Unavailable):
    pass


@pytest.fixture
async def address() -> AsyncIterator[str]:
    server = grpc.aio.server()
    table_pb2_grpc.add_TableEngineServicer_to_server(_Refusing(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    yield f"127.0.0.1:{port}"
    await server.stop(grace=None)


async def test_a_refusal_comes_back_as_its_kind_with_the_hosts_message(address: str) -> None:
    client = TableHostClient(address)
    try:
        with pytest.raises(RuleBroken, match="the table host refused: the table is in play"):
            await client.close_table("t1")
    finally:
        await client.close()


async def test_any_other_status_means_unavailable_and_names_the_method(address: str) -> None:
    client = TableHostClient(lambda: address)
    try:
        with pytest.raises(Unavailable, match=r"did not answer OpenTable \(UNIMPLEMENTED\); retry"):
            await client.call("OpenTable", table_pb2.OpenTableRequest(game="rummy"))
    finally:
        await client.close()


async def test_without_refusals_every_status_is_the_callers_unavailable(address: str) -> None:
    client = TableHostClient(
        address, refusals={}, unavailable=_HostDown, details=True, retry="later"
    )
    try:
        with pytest.raises(
            _HostDown,
            match=r"CloseTable \(FAILED_PRECONDITION: the table is in play\); later",
        ):
            await client.close_table("t1")
    finally:
        await client.close()
