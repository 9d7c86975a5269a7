"""The table host's gRPC client: the host's refusals come back as `croupier.game` kinds
with its message; any other status as the caller's `Unavailable`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
import pytest

from croupier.game import Malformed, RuleBroken, Unknown
from croupier.kit.errors import Unavailable
from croupier.table.client import TableHostClient, game_targets
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


class _NotHere(table_pb2_grpc.TableEngineServicer):
    """A replica that serves none of the tables asked for."""

    async def GetView(self, request: Any, context: Any) -> Any:
        await context.abort(grpc.StatusCode.UNAVAILABLE, "not served by this replica")


class _Here(table_pb2_grpc.TableEngineServicer):
    async def GetView(self, request: Any, context: Any) -> Any:
        return table_pb2.GetViewResponse(view=table_pb2.TableView(version=7))


@pytest.fixture
async def replicas() -> AsyncIterator[list[str]]:
    """Two replicas of one game's host: the first serves no table, the second every one."""
    async with _servers(_NotHere(), _Here()) as addresses:
        yield addresses


async def test_a_failover_tries_unavailable_again_on_the_next_replica(
    replicas: list[str],
) -> None:
    client = TableHostClient("ipv4:" + ",".join(replicas), failover_seconds=5)
    try:
        for _ in range(4):  # round robin: some of them ask the first replica first
            response = await client.call("GetView", table_pb2.GetViewRequest(table_id="t1"))
            assert response.view.version == 7
    finally:
        await client.close()


async def test_a_failover_gives_up_after_its_window(replicas: list[str]) -> None:
    client = TableHostClient(replicas[0], failover_seconds=0.3)
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        with pytest.raises(Unavailable, match=r"did not answer GetView \(UNAVAILABLE\)"):
            await client.call("GetView", table_pb2.GetViewRequest(table_id="t1"))
        assert 0.3 <= loop.time() - started < 2
    finally:
        await client.close()


class _GameService(table_pb2_grpc.TableEngineServicer):
    """One game's table service: it opens tables named after its game, and knows those."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.asked = 0

    async def OpenTable(self, request: Any, context: Any) -> Any:
        return table_pb2.OpenTableResponse(table_id=f"{self.game}-table")

    async def GetView(self, request: Any, context: Any) -> Any:
        self.asked += 1
        if request.table_id != f"{self.game}-table":
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no table {request.table_id}")
        return table_pb2.GetViewResponse(view=table_pb2.TableView(table_id=request.table_id))


@pytest.fixture
async def per_game() -> AsyncIterator[tuple[str, dict[str, _GameService]]]:
    """A poker and a rummy service, and the target naming both."""
    services, servers, pairs = {}, [], []
    for game in ("poker", "rummy"):
        server = grpc.aio.server()
        services[game] = _GameService(game)
        table_pb2_grpc.add_TableEngineServicer_to_server(services[game], server)
        pairs.append(f"{game}=127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}")
        await server.start()
        servers.append(server)
    yield ",".join(pairs), services
    for server in servers:
        await server.stop(grace=None)


async def test_per_game_services_open_a_game_at_its_own_and_find_a_table_once(
    per_game: tuple[str, dict[str, _GameService]],
) -> None:
    target, services = per_game
    client = TableHostClient(target)
    try:
        opened = await client.call("OpenTable", table_pb2.OpenTableRequest(game="rummy"))
        assert opened.table_id == "rummy-table"
        for _ in range(3):
            answer = await client.call("GetView", table_pb2.GetViewRequest(table_id="rummy-table"))
            assert answer.view.table_id == "rummy-table"
        # Looked up once (both asked, the first to know it the answer), then remembered:
        # rummy's service alone answers.
        assert services["poker"].asked <= 1 and services["rummy"].asked == 4
        with pytest.raises(Unknown, match="no table elsewhere"):
            await client.call("GetView", table_pb2.GetViewRequest(table_id="elsewhere"))
        with pytest.raises(Malformed, match="no table service runs 'chess'"):
            await client.call("OpenTable", table_pb2.OpenTableRequest(game="chess"))
    finally:
        await client.close()


def test_per_game_targets_read_game_equals_address() -> None:
    assert game_targets("table:50051") == {}
    assert game_targets("poker=a:1, rummy=b:2") == {"poker": "a:1", "rummy": "b:2"}
    with pytest.raises(ValueError, match="game=host:port"):
        game_targets("poker=a:1,=b:2")


async def test_listed_replicas_the_one_that_served_a_table_is_asked_first() -> None:
    not_here, here = _CountingNotHere(), _Here()
    async with _servers(not_here, here) as addresses:
        client = TableHostClient(",".join(addresses), failover_seconds=5)
        try:
            for _ in range(3):
                response = await client.call("GetView", table_pb2.GetViewRequest(table_id="t1"))
                assert response.view.version == 7
            assert not_here.asked == 1  # the first call only: then t1's replica is known
        finally:
            await client.close()


class _CountingNotHere(_NotHere):
    def __init__(self) -> None:
        self.asked = 0

    async def GetView(self, request: Any, context: Any) -> Any:
        self.asked += 1
        return await super().GetView(request, context)


class _Streaming(table_pb2_grpc.TableEngineServicer):
    """A replica whose view stream sends `versions`, then breaks (UNAVAILABLE: it stops or
    lost the table) unless its last view closed the table."""

    def __init__(self, *versions: int, closes: bool = False) -> None:
        self.versions, self.closes = versions, closes

    async def WatchView(self, request: Any, context: Any) -> AsyncIterator[Any]:
        for number, version in enumerate(self.versions, start=1):
            closed = self.closes and number == len(self.versions)
            yield table_pb2.WatchViewResponse(
                view=table_pb2.TableView(table_id=request.table_id, version=version, closed=closed)
            )
        if not self.closes:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "not served by this replica")


async def test_a_followed_stream_is_opened_again_on_the_next_replica_until_finished() -> None:
    async with _servers(_Streaming(1, 2), _Streaming(2, 3, closes=True)) as addresses:
        client = TableHostClient(addresses)
        try:
            request = table_pb2.WatchViewRequest(table_id="t1")
            follow = client.follow("WatchView", request, lambda r: r.view.closed, 5)
            versions = [response.view.version async for response in follow]
            # The second replica's stream starts with the full current state (2 again).
            assert versions == [1, 2, 2, 3]
        finally:
            await client.close()


async def test_a_followed_stream_of_a_table_nobody_serves_ends_unavailable() -> None:
    async with _servers(_Streaming()) as addresses:
        client = TableHostClient(addresses)
        try:
            request = table_pb2.WatchViewRequest(table_id="t1")
            with pytest.raises(Unavailable, match=r"did not answer WatchView \(UNAVAILABLE\)"):
                async for _ in client.follow("WatchView", request, lambda r: False, 0.3):
                    pass
        finally:
            await client.close()


@asynccontextmanager
async def _servers(*servicers: Any) -> AsyncIterator[list[str]]:
    servers, addresses = [], []
    try:
        for servicer in servicers:
            server = grpc.aio.server()
            table_pb2_grpc.add_TableEngineServicer_to_server(servicer, server)
            addresses.append(f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}")
            await server.start()
            servers.append(server)
        yield addresses
    finally:
        for server in servers:
            await server.stop(grace=None)
