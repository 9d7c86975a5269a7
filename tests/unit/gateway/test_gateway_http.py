"""The gateway over HTTP as browsers call it: Connect with JSON and gRPC-Web, the same
implementation and the same answers as over gRPC, counted in the same metrics."""

from __future__ import annotations

import asyncio
import json
import random
import re
import socket

import pytest
from prometheus_client import REGISTRY

from croupier.gateway.v1 import gateway_pb2 as pb
from tests.support.gateway import connect_call, grpc_web_call, token
from tests.unit.gateway.conftest import NOW, POKER, World

OK, PERMISSION_DENIED, UNAUTHENTICATED = "0", "7", "16"


def _act(world: World, player: str) -> pb.ActRequest:
    own = dict(world.host.view(world.table_id, player).view)
    action = POKER.legal_action(own, random.Random(2))
    return pb.ActRequest(table_id=world.table_id, command_id="h1", action_json=json.dumps(action))


async def test_a_token_acts_for_its_own_player_over_connect(world: World) -> None:
    player = world.to_act()
    before = world.host.view(world.table_id, "").version
    status, body = await connect_call(
        world.gateway.http, "Act", _act(world, player), "Bearer " + token(player, now=NOW)
    )
    assert status == 200, body
    assert int(body["view"]["version"]) > before
    assert world.host.view(world.table_id, "").version == int(body["view"]["version"])


async def test_acting_without_a_seat_over_connect_is_permission_denied(world: World) -> None:
    before = world.host.digest(world.table_id)
    status, body = await connect_call(
        world.gateway.http,
        "Act",
        _act(world, world.to_act()),
        "Bearer " + token("eve", now=NOW),
    )
    assert (status, body["code"]) == (403, "permission_denied")
    assert "no seat" in body["message"]
    assert world.host.digest(world.table_id) == before


async def test_a_refusal_over_connect_is_failed_precondition_with_http_400(world: World) -> None:
    # Connect's code table gives failed_precondition HTTP 400 (not 412): a frontend reads
    # the code in the body, not the HTTP status.
    player = world.to_act()
    other = next(p for p in POKER.players if p != player)
    before = world.host.digest(world.table_id)
    status, body = await connect_call(
        world.gateway.http, "Act", _act(world, player), "Bearer " + token(other, now=NOW)
    )
    assert (status, body["code"]) == (400, "failed_precondition"), body
    assert world.host.digest(world.table_id) == before


async def test_no_token_over_connect_is_unauthenticated(world: World) -> None:
    request = pb.GetBalanceRequest(currency="CHIP")
    status, body = await connect_call(world.gateway.http, "GetBalance", request, None)
    assert (status, body["code"]) == (401, "unauthenticated")
    assert "no token" in body["message"]
    expired = "Bearer " + token("p0", now=NOW - 3600)
    status, body = await connect_call(world.gateway.http, "GetBalance", request, expired)
    assert (status, body["code"]) == (401, "unauthenticated")
    assert world.wallet.calls == []


async def test_money_over_connect_is_the_callers_own(world: World) -> None:
    status, body = await connect_call(
        world.gateway.http,
        "GetBalance",
        pb.GetBalanceRequest(currency="CHIP"),
        "Bearer " + token("p0", now=NOW),
    )
    assert status == 200
    assert body["balance"] == {"amountMinor": "500", "currency": "CHIP"}


async def test_grpc_web_serves_views_streams_and_refusals(world: World) -> None:
    viewer = "Bearer " + token("p0", now=NOW)
    messages, trailers = await grpc_web_call(
        world.gateway.http, "GetTableView", pb.GetTableViewRequest(table_id=world.table_id), viewer
    )
    assert trailers["grpc-status"] == OK
    assert pb.GetTableViewResponse.FromString(messages[0]).view.table_id == world.table_id
    _, trailers = await grpc_web_call(
        world.gateway.http, "Act", _act(world, world.to_act()), "Bearer " + token("eve", now=NOW)
    )
    assert trailers["grpc-status"] == PERMISSION_DENIED
    messages, trailers = await grpc_web_call(
        world.gateway.http, "WatchTournament", pb.WatchTournamentRequest(tournament_id="t1"), viewer
    )
    assert trailers["grpc-status"] == OK
    assert [pb.WatchTournamentResponse.FromString(m).event.sequence for m in messages] == [1]
    _, trailers = await grpc_web_call(
        world.gateway.http, "GetTableView", pb.GetTableViewRequest(table_id=world.table_id), None
    )
    assert trailers["grpc-status"] == UNAUTHENTICATED


async def test_calls_over_connect_are_counted_with_the_grpc_calls(world: World) -> None:
    def handled(code: str) -> float:
        labels = {
            "grpc_type": "unary",
            "grpc_service": "croupier.gateway.v1.Gateway",
            "grpc_method": "GetBalance",
            "grpc_code": code,
        }
        return REGISTRY.get_sample_value("grpc_server_handled_total", labels) or 0.0

    def timed() -> float:
        labels = {
            "grpc_type": "unary",
            "grpc_service": "croupier.gateway.v1.Gateway",
            "grpc_method": "GetBalance",
        }
        return REGISTRY.get_sample_value("grpc_server_handling_seconds_count", labels) or 0.0

    ok, refused, calls = handled("OK"), handled("Unauthenticated"), timed()
    request = pb.GetBalanceRequest(currency="CHIP")
    status, _ = await connect_call(
        world.gateway.http, "GetBalance", request, "Bearer " + token("p0", now=NOW)
    )
    assert status == 200
    status, _ = await connect_call(world.gateway.http, "GetBalance", request, None)
    assert status == 401
    assert (handled("OK"), handled("Unauthenticated")) == (ok + 1, refused + 1)
    assert timed() == calls + 2


async def _raw_table_view(world: World, headers: list[bytes]) -> bytes:
    """A Connect `GetTableView` of the world's table whose headers may hold any bytes
    (HTTP allows them; a client library would refuse to send them); the whole answer."""
    body = json.dumps({"tableId": world.table_id}).encode()
    return await asyncio.to_thread(_raw_call, world.gateway.http, "GetTableView", body, headers)


def _raw_call(address: str, method: str, body: bytes, headers: list[bytes]) -> bytes:
    host, _, port = address.removeprefix("http://").rpartition(":")
    request = b"\r\n".join(
        [
            f"POST /croupier.gateway.v1.Gateway/{method} HTTP/1.1".encode(),
            b"Host: gateway",
            b"Content-Type: application/json",
            b"Connect-Protocol-Version: 1",
            f"Content-Length: {len(body)}".encode(),
            b"Connection: close",
            *headers,
            b"",
            body,
        ]
    )
    with socket.create_connection((host, int(port)), timeout=20) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


@pytest.mark.parametrize(
    "request_id",
    [b"tab\there", "caf\u00e9".encode(), b"\xff\xfe", b"x" * 129],
    ids=["a tab", "utf-8 letters", "not utf-8", "too long"],
)
async def test_a_request_id_that_cannot_travel_on_is_replaced_not_a_failed_call(
    world: World, request_id: bytes
) -> None:
    bearer = f"Authorization: Bearer {token(world.to_act(), now=NOW)}".encode()
    answer = await _raw_table_view(
        world, [bearer, b"x-request-id: " + request_id, b"User-Agent: \xff\xfe"]
    )
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:400]
    given = re.search(rb"trailer-x-request-id: (\S+)\r\n", answer)
    assert given is not None and given[1] != request_id and given[1].isascii()


async def test_a_token_that_is_not_text_is_unauthenticated_over_connect(world: World) -> None:
    answer = await _raw_table_view(world, [b"Authorization: Bearer \xff\xfe\x80"])
    assert answer.startswith(b"HTTP/1.1 401 "), answer[:400]
    assert b'"unauthenticated"' in answer and b"token_malformed" in answer
