"""The gateway over HTTP as browsers call it: Connect with JSON and gRPC-Web, the same
implementation and the same answers as over gRPC, counted in the same metrics."""

from __future__ import annotations

import json
import random

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
