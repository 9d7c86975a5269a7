"""Hostile requests to every gateway method (hypothesis), over gRPC and over Connect: never
INTERNAL or UNKNOWN, and a refused request changes nothing (the table, the registrations,
the balances)."""

from __future__ import annotations

import functools
from typing import Any

import grpc
from google.protobuf.descriptor import Descriptor
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.gateway.v1 import gateway_pb2 as pb
from tests.support.gateway import bearer, connect_call, token
from tests.support.hostile import fill, scalar
from tests.unit.gateway.conftest import NOW, World

METHODS = pb.DESCRIPTOR.services_by_name["Gateway"].methods
INTS = [0, 1, 2, 100, 2**31 - 1, 2**32 - 1, 2**63 - 1, -1, -(2**63)]
_TEXT = st.one_of(
    st.sampled_from(["", "t1", "p0", "p1", "CHIP", "USD", "{}", '{"action": "fold"}', "x" * 129]),
    st.text(max_size=40),
    st.text(min_size=100, max_size=300),
)
_TABLE_ID = "__table__"  # replaced by the world's table id


@functools.cache
def _values(descriptor: Descriptor, depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for field in descriptor.fields:
        if field.message_type is not None:
            if depth >= 3 or field.message_type.GetOptions().map_entry:
                continue
            value: st.SearchStrategy[Any] = _values(field.message_type, depth + 1)
        else:
            text = st.one_of(st.just(_TABLE_ID), _TEXT) if field.name == "table_id" else _TEXT
            value = scalar(field, INTS, text)
        fields[field.name] = st.lists(value, max_size=2) if field.is_repeated else value
    return st.fixed_dictionaries({}, optional=fields)


def _with_table(values: Any, table_id: str) -> Any:
    if isinstance(values, dict):
        return {key: _with_table(value, table_id) for key, value in values.items()}
    if isinstance(values, list):
        return [_with_table(value, table_id) for value in values]
    return table_id if values == _TABLE_ID else values


@st.composite
def _requests(draw: st.DrawFn, unary_only: bool = False) -> tuple[str, bool, dict[str, Any]]:
    method = draw(st.sampled_from([m for m in METHODS if not (unary_only and m.server_streaming)]))
    values = draw(_values(method.input_type))
    return method.name, method.server_streaming, values


def _state(world: World) -> tuple[object, ...]:
    return (
        world.host.digest(world.table_id),
        tuple(world.tournaments.registered),
        tuple(sorted(world.wallet.balances.items())),
    )


def _request(world: World, name: str, values: dict[str, Any]) -> Any:
    method = pb.DESCRIPTOR.services_by_name["Gateway"].methods_by_name[name]
    request_class = getattr(pb, method.input_type.name)
    return fill(request_class(), _with_table(values, world.table_id))


HOSTILE = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@HOSTILE
@given(call=_requests())
async def test_no_grpc_request_gets_internal_or_changes_anything_when_refused(
    world: World, call: tuple[str, bool, dict[str, Any]]
) -> None:
    name, streaming, values = call
    request = _request(world, name, values)
    before = _state(world)
    method = getattr(world.gateway.stub, name)
    try:
        if streaming:
            # A spectator's: a seated player's stream ending marks him gone a moment later
            # (the gateway's presence), which would land in the next example's state.
            stream = method(request, metadata=bearer("p9", now=NOW), timeout=10)
            try:
                await stream.read()
            finally:
                stream.cancel()
        else:
            await method(request, metadata=bearer("p0", now=NOW), timeout=10)
    except grpc.aio.AioRpcError as error:
        assert error.code() not in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN), (
            name,
            error.code(),
            error.details(),
        )
        assert _state(world) == before, f"{name} refused but changed something"


@settings(HOSTILE, max_examples=60)
@given(call=_requests(unary_only=True))
async def test_no_connect_request_gets_internal_or_changes_anything_when_refused(
    world: World, call: tuple[str, bool, dict[str, Any]]
) -> None:
    name, _, values = call
    request = _request(world, name, values)
    before = _state(world)
    status, body = await connect_call(
        world.gateway.http, name, request, "Bearer " + token("p0", now=NOW)
    )
    assert status < 500 or body.get("code") == "unavailable", (name, status, body)
    assert body.get("code") not in ("internal", "unknown"), (name, body)
    if status != 200:
        assert _state(world) == before, f"{name} refused but changed something"
