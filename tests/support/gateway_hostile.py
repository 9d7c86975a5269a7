"""Hostile requests to the gateway's methods (hypothesis), shared by the in-process fuzz
(tests/unit/gateway: the table host, wallet and director) and the one against the lobby
on PostgreSQL (tests/integration/gateway)."""

from __future__ import annotations

import functools
from collections.abc import Collection
from typing import Any

import grpc
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message
from hypothesis import strategies as st

from croupier.gateway.v1 import gateway_pb2 as pb
from tests.support.hostile import fill, scalar

METHODS = pb.DESCRIPTOR.services_by_name["Gateway"].methods
INTS = [0, 1, 2, 100, 2**31 - 1, 2**32 - 1, 2**63 - 1, -1, -(2**63)]
_TEXT = st.one_of(
    st.sampled_from(["", "t1", "p0", "p1", "CHIP", "USD", "{}", '{"action": "fold"}', "x" * 129]),
    st.text(max_size=40),
    st.text(min_size=100, max_size=300),
)
_TABLE_ID = "__table__"  # replaced by a real table's id


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


Call = tuple[str, bool, dict[str, Any]]  # method name, whether it streams, field values


@st.composite
def gateway_calls(
    draw: st.DrawFn, unary_only: bool = False, only: Collection[str] | None = None
) -> Call:
    """A method of the gateway (`only` these, when given) and hostile values for its
    request's fields."""
    method = draw(
        st.sampled_from(
            [
                m
                for m in METHODS
                if not (unary_only and m.server_streaming) and (only is None or m.name in only)
            ]
        )
    )
    values = draw(_values(method.input_type))
    return method.name, method.server_streaming, values


def gateway_request(name: str, values: dict[str, Any], table_id: str) -> Message:
    """Method `name`'s request filled with `values`, naming `table_id` where drawn so."""
    method = pb.DESCRIPTOR.services_by_name["Gateway"].methods_by_name[name]
    request_class = getattr(pb, method.input_type.name)
    return fill(request_class(), _with_table(values, table_id))


async def call_over_grpc(
    stub: Any, name: str, streaming: bool, request: Message, metadata: Any
) -> grpc.StatusCode:
    """Call method `name` of the gateway's `stub` (a stream: until its first message, then
    cancelled); the status it ended with (OK when it answered)."""
    method = getattr(stub, name)
    try:
        if streaming:
            stream = method(request, metadata=metadata, timeout=10)
            try:
                await stream.read()
            finally:
                stream.cancel()
        else:
            await method(request, metadata=metadata, timeout=10)
    except grpc.aio.AioRpcError as error:
        return error.code()
    return grpc.StatusCode.OK
