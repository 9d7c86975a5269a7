"""Hostile requests to every gateway method (hypothesis), over gRPC and over Connect: never
INTERNAL or UNKNOWN, and a refused request changes nothing (the table, the registrations,
the balances)."""

from __future__ import annotations

from typing import Any

import grpc
from hypothesis import HealthCheck, given, settings

from tests.support.gateway import bearer, connect_call, token
from tests.support.gateway_hostile import Call, call_over_grpc, gateway_calls, gateway_request
from tests.unit.gateway.conftest import NOW, World


def _state(world: World) -> tuple[object, ...]:
    return (
        world.host.digest(world.table_id),
        tuple(world.tournaments.registered),
        tuple(sorted(world.wallet.balances.items())),
    )


def _request(world: World, name: str, values: dict[str, Any]) -> Any:
    return gateway_request(name, values, world.table_id)


HOSTILE = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@HOSTILE
@given(call=gateway_calls())
async def test_no_grpc_request_gets_internal_or_changes_anything_when_refused(
    world: World, call: Call
) -> None:
    name, streaming, values = call
    request = _request(world, name, values)
    before = _state(world)
    # A stream is a spectator's: a seated player's stream ending marks him gone a moment
    # later (the gateway's presence), which would land in the next example's state.
    caller = "p9" if streaming else "p0"
    code = await call_over_grpc(
        world.gateway.stub, name, streaming, request, bearer(caller, now=NOW)
    )
    assert code not in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN), (name, code)
    if code != grpc.StatusCode.OK:
        assert _state(world) == before, f"{name} refused but changed something"


@settings(HOSTILE, max_examples=60)
@given(call=gateway_calls(unary_only=True))
async def test_no_connect_request_gets_internal_or_changes_anything_when_refused(
    world: World, call: Call
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
