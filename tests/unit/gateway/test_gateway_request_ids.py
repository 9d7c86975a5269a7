"""Request ids end to end (docs/gateway.md, "Request ids"), in process (the `world`
fixture: the gateway and the table host it calls on one gRPC port): a call runs under the
client's `x-request-id`, or a new one; the id comes back in the trailers (gRPC) or in the
`trailer-x-request-id` header (Connect's unary form of a trailer), and the gateway sends it
on with its call to the table host, which logs under the same id.

What the host logged is read from structlog's context variables as the kit's log lines
carry them: a refusal by the host is logged there as "call rejected", under the id its
call came with."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc
import pytest
import structlog
from google.protobuf import json_format
from structlog.typing import EventDict

from croupier.gateway.v1 import gateway_pb2 as pb
from tests.support.gateway import SERVICE_PATH, bearer, token
from tests.unit.gateway.conftest import NOW, World

HOST_METHOD = "/croupier.table.v1.TableEngine/GetHandHistory"
GATEWAY_METHOD = "/croupier.gateway.v1.Gateway/GetHandHistory"
UNFINISHED = 7
"""A hand the table has not played: the host refuses its history (NOT_FOUND) and logs so."""


@contextmanager
def captured() -> Iterator[list[EventDict]]:
    """The log lines written meanwhile, with the context variables (the request id) the
    kit binds for each call merged in, as its JSON log lines have them."""
    with structlog.testing.capture_logs(
        processors=[structlog.contextvars.merge_contextvars]
    ) as entries:
        yield entries


def _rejections(entries: list[EventDict], method: str) -> list[str]:
    """The request ids under which `method` logged a refusal."""
    return [
        str(entry.get("request_id"))
        for entry in entries
        if entry.get("event") == "call rejected" and entry.get("method") == method
    ]


def _metadata(request_id: str | None) -> tuple[tuple[str, str], ...]:
    given = () if request_id is None else (("x-request-id", request_id),)
    return (*bearer("p0", now=NOW), *given)


async def _refused_over_grpc(world: World, request_id: str | None) -> str:
    """The request id in the trailers of a GetHandHistory the host refuses."""
    request = pb.GetHandHistoryRequest(table_id=world.table_id, hand_number=UNFINISHED)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await world.gateway.stub.GetHandHistory(request, metadata=_metadata(request_id))
    assert caught.value.code() is grpc.StatusCode.NOT_FOUND
    return str(dict(caught.value.trailing_metadata() or ()).get("x-request-id", ""))


def _post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, b""
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


async def _over_connect(
    world: World, method: str, request: Any, request_id: str | None
) -> tuple[int, dict[str, str]]:
    """A unary Connect call (JSON) as `p0`, with `request_id` in `x-request-id`: the
    HTTP status and the response's headers (lower-cased names)."""
    headers = {
        "Content-Type": "application/json",
        "Connect-Protocol-Version": "1",
        "Authorization": "Bearer " + token("p0", now=NOW),
    }
    if request_id is not None:
        headers["X-Request-Id"] = request_id
    url = f"{world.gateway.http}{SERVICE_PATH}/{method}"
    body = json_format.MessageToJson(request).encode()
    status, answer_headers, _ = await asyncio.to_thread(_post, url, body, headers)
    return status, answer_headers


# ---- gRPC ----------------------------------------------------------------------------


async def test_a_clients_request_id_comes_back_in_the_grpc_trailers(world: World) -> None:
    call = world.gateway.stub.GetTableView(
        pb.GetTableViewRequest(table_id=world.table_id), metadata=_metadata("app-req-0001")
    )
    answer = await call
    assert answer.view.table_id == world.table_id
    assert ("x-request-id", "app-req-0001") in tuple(await call.trailing_metadata())


async def test_the_table_host_logs_the_gateways_call_under_the_clients_grpc_request_id(
    world: World,
) -> None:
    with captured() as entries:
        returned = await _refused_over_grpc(world, "app-req-0002")
    assert returned == "app-req-0002"
    assert _rejections(entries, HOST_METHOD) == ["app-req-0002"]  # the service behind
    assert _rejections(entries, GATEWAY_METHOD) == ["app-req-0002"]  # and the gateway


async def test_without_a_request_id_each_grpc_call_gets_a_new_one_the_host_logs_too(
    world: World,
) -> None:
    with captured() as entries:
        first = await _refused_over_grpc(world, None)
        second = await _refused_over_grpc(world, None)
    assert first and second and first != second
    assert _rejections(entries, HOST_METHOD) == [first, second]


async def test_a_grpc_request_id_longer_than_128_characters_is_replaced(world: World) -> None:
    too_long = "r" * 129
    with captured() as entries:
        returned = await _refused_over_grpc(world, too_long)
    assert returned and returned != too_long
    assert _rejections(entries, HOST_METHOD) == [returned]


# ---- Connect -------------------------------------------------------------------------


async def test_a_clients_request_id_comes_back_over_connect(world: World) -> None:
    request = pb.GetTableViewRequest(table_id=world.table_id)
    status, headers = await _over_connect(world, "GetTableView", request, "web-req-0001")
    assert status == 200
    # Connect sends a unary call's trailers as headers prefixed `trailer-`.
    assert headers["trailer-x-request-id"] == "web-req-0001"


async def test_the_table_host_logs_the_gateways_call_under_the_clients_connect_request_id(
    world: World,
) -> None:
    request = pb.GetHandHistoryRequest(table_id=world.table_id, hand_number=UNFINISHED)
    with captured() as entries:
        status, headers = await _over_connect(world, "GetHandHistory", request, "web-req-0002")
    assert status == 404
    assert headers["trailer-x-request-id"] == "web-req-0002"
    assert headers["trailer-x-error-reason"] == "unknown"  # the host's refusal, passed on
    assert _rejections(entries, HOST_METHOD) == ["web-req-0002"]


async def test_without_a_request_id_each_connect_call_gets_a_new_one_the_host_logs_too(
    world: World,
) -> None:
    request = pb.GetHandHistoryRequest(table_id=world.table_id, hand_number=UNFINISHED)
    with captured() as entries:
        answers = [await _over_connect(world, "GetHandHistory", request, None) for _ in "ab"]
    returned = [headers.get("trailer-x-request-id", "") for _, headers in answers]
    assert [status for status, _ in answers] == [404, 404]
    assert all(returned) and returned[0] != returned[1]
    assert _rejections(entries, HOST_METHOD) == returned
