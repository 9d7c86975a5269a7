"""The gateway over gRPC: the player comes from the token, only seated players act, every
bad token is UNAUTHENTICATED, streams end when the token expires, a seated player's presence
follows his view streams."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from typing import Any

import grpc
import jwt
import pytest

from croupier.gateway.v1 import gateway_pb2 as pb
from croupier.kit.auth import MAX_CLOCK_SKEW_SECONDS, KeySet
from tests.support.games import strings_in
from tests.support.gateway import bearer, token
from tests.support.table import status_of
from tests.unit.gateway.conftest import NOW, POKER, World


def _act(world: World, player: str, command_id: str = "c1") -> pb.ActRequest:
    own = dict(world.host.view(world.table_id, player).view)
    action = POKER.legal_action(own, random.Random(1))
    return pb.ActRequest(
        table_id=world.table_id, command_id=command_id, action_json=json.dumps(action)
    )


async def test_a_token_acts_for_its_own_player(world: World) -> None:
    player = world.to_act()
    before = world.host.view(world.table_id, "").version
    answer = await world.gateway.stub.Act(_act(world, player), metadata=bearer(player, now=NOW))
    assert answer.view.version > before
    assert world.host.view(world.table_id, "").version == answer.view.version


async def test_acting_at_a_table_without_a_seat_is_permission_denied(world: World) -> None:
    player = world.to_act()
    request = _act(world, player)
    before = world.host.digest(world.table_id)
    code, details = await status_of(
        world.gateway.stub.Act(request, metadata=bearer("eve", now=NOW))
    )
    assert code is grpc.StatusCode.PERMISSION_DENIED
    assert "no seat" in details
    assert world.host.digest(world.table_id) == before


async def test_the_other_seated_player_gets_the_games_refusal_and_its_reason(world: World) -> None:
    player = world.to_act()
    other = next(p for p in POKER.players if p != player)
    request = _act(world, player)
    before = world.host.digest(world.table_id)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await world.gateway.stub.Act(request, metadata=bearer(other, now=NOW))
    assert caught.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert ("x-error-reason", "not_your_turn") in tuple(caught.value.trailing_metadata() or ())
    assert world.host.digest(world.table_id) == before


async def test_leaving_or_reconnecting_without_a_seat_is_permission_denied(world: World) -> None:
    eve = bearer("eve", now=NOW)
    leave = world.gateway.stub.LeaveTable(
        pb.LeaveTableRequest(table_id=world.table_id), metadata=eve
    )
    assert (await status_of(leave))[0] is grpc.StatusCode.PERMISSION_DENIED
    back = world.gateway.stub.Reconnect(pb.ReconnectRequest(table_id=world.table_id), metadata=eve)
    assert (await status_of(back))[0] is grpc.StatusCode.PERMISSION_DENIED


async def test_an_unknown_table_is_not_found(world: World) -> None:
    request = pb.ActRequest(table_id="no-such-table", command_id="c1", action_json="{}")
    code, _ = await status_of(world.gateway.stub.Act(request, metadata=bearer("p0", now=NOW)))
    assert code is grpc.StatusCode.NOT_FOUND


async def test_each_player_sees_his_own_cards_and_a_spectator_none(world: World) -> None:
    request = pb.GetTableViewRequest(table_id=world.table_id)
    views = {
        player: (await world.gateway.stub.GetTableView(request, metadata=bearer(player, now=NOW)))
        for player in (*POKER.players, "eve")
    }
    secrets = {
        player: POKER.secrets(player, json.loads(views[player].view.view_json))
        for player in POKER.players
    }
    assert all(secrets.values())
    for viewer, answer in views.items():
        seen = strings_in(answer.view)
        for owner, cards in secrets.items():
            assert (cards <= seen) if owner == viewer else not (cards & seen), (viewer, owner)


def _forged(alg: str) -> str:
    claims: dict[str, object] = {"sub": "p0", "iss": "croupier", "aud": "croupier-gateway"}
    claims |= {"iat": int(NOW), "exp": int(NOW) + 600}
    key = None if alg == "none" else "k" * 64
    return jwt.encode(claims, key, algorithm=alg, headers={"kid": "test-1"})


@pytest.mark.parametrize(
    ("authorization", "reason"),
    [
        (None, "token_missing"),
        ("Basic cDA6cDA=", "token_malformed"),
        ("Bearer not-a-jwt", "token_malformed"),
        ("Bearer " + _forged("none"), "token_algorithm"),
        ("Bearer " + _forged("HS512"), "token_algorithm"),
        (
            "Bearer "
            + token("p0", now=NOW, keys=KeySet(keys={"test-1": "x" * 64}, signing_kid="test-1")),
            "token_signature",
        ),
        (
            "Bearer " + token("p0", now=NOW, keys=KeySet(keys={"k9": "k" * 64}, signing_kid="k9")),
            "token_unknown_key",
        ),
        ("Bearer " + token("p0", now=NOW - 700 - MAX_CLOCK_SKEW_SECONDS), "token_expired"),
    ],
)
async def test_a_bad_token_is_unauthenticated(
    world: World, authorization: str | None, reason: str
) -> None:
    metadata = () if authorization is None else (("authorization", authorization),)
    request = pb.GetBalanceRequest(currency="CHIP")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await world.gateway.stub.GetBalance(request, metadata=metadata)
    assert caught.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert ("x-error-reason", reason) in tuple(caught.value.trailing_metadata() or ())
    assert world.wallet.calls == []


async def test_a_view_stream_ends_unauthenticated_when_the_token_expires(world: World) -> None:
    metadata = bearer("p0", now=NOW, ttl_seconds=60)
    stream = world.gateway.stub.WatchTable(
        pb.WatchTableRequest(table_id=world.table_id), metadata=metadata
    )
    first = await stream.read()
    assert first.view.table_id == world.table_id
    world.clock.now = NOW + 60 + MAX_CLOCK_SKEW_SECONDS
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await asyncio.wait_for(stream.read(), 10)
    assert caught.value.code() is grpc.StatusCode.UNAUTHENTICATED


async def test_money_is_the_callers_own(world: World) -> None:
    answer = await world.gateway.stub.GetBalance(
        pb.GetBalanceRequest(currency="CHIP"), metadata=bearer("p0", now=NOW)
    )
    assert answer.balance.amount_minor == 500
    code, _ = await status_of(
        world.gateway.stub.GetBalance(
            pb.GetBalanceRequest(currency="CHIP"), metadata=bearer("p1", now=NOW)
        )
    )
    assert code is grpc.StatusCode.NOT_FOUND  # p1's own account, which he does not have
    assert world.wallet.calls == [("balance", "p0", "CHIP"), ("balance", "p1", "CHIP")]


async def test_a_malformed_request_reaches_no_service(world: World) -> None:
    code, _ = await status_of(
        world.gateway.stub.GetStatement(
            pb.GetStatementRequest(currency="chips\n"), metadata=bearer("p0", now=NOW)
        )
    )
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert world.wallet.calls == []


async def test_tournament_calls_carry_the_callers_player(world: World) -> None:
    stub, metadata = world.gateway.stub, bearer("p1", now=NOW)
    registered = await stub.RegisterTournament(
        pb.RegisterTournamentRequest(tournament_id="t1"), metadata=metadata
    )
    assert registered.entry_id == "t1:p1:entry"
    again = stub.RegisterTournament(
        pb.RegisterTournamentRequest(tournament_id="t1"), metadata=metadata
    )
    assert (await status_of(again))[0] is grpc.StatusCode.ALREADY_EXISTS
    lobby = await stub.GetTournament(pb.GetTournamentRequest(tournament_id="t1"), metadata=metadata)
    assert list(lobby.lobby.player_ids) == ["p1"]
    await stub.UnregisterTournament(
        pb.UnregisterTournamentRequest(tournament_id="t1"), metadata=metadata
    )
    assert world.tournaments.registered == []
    stream = stub.WatchTournament(pb.WatchTournamentRequest(tournament_id="t1"), metadata=metadata)
    assert [message.event.sequence async for message in stream] == [1]


async def test_a_seated_players_presence_follows_his_view_streams(world: World) -> None:
    """Gone (the host's reconnection window) when his last stream of the table ends; back
    when he opens one again; a spectator's stream changes nobody's presence."""

    def disconnected() -> tuple[str, ...]:
        return world.host.view(world.table_id, "").disconnected

    async def until(condition: Callable[[], bool]) -> None:
        async with asyncio.timeout(10):
            while not condition():  # noqa: ASYNC110 - polling the host is the point
                await asyncio.sleep(0.01)

    def watch(player: str) -> Any:
        request = pb.WatchTableRequest(table_id=world.table_id)
        return world.gateway.stub.WatchTable(request, metadata=bearer(player, now=NOW))

    first, second = watch("p0"), watch("p0")
    await first.read()
    await second.read()
    first.cancel()
    spectator = watch("eve")
    await spectator.read()
    spectator.cancel()
    await asyncio.sleep(0.3)  # time for a wrong Disconnect to land
    assert disconnected() == ()  # p0 still has a stream; eve has no seat

    second.cancel()
    await until(lambda: disconnected() == ("p0",))
    again = watch("p0")
    await again.read()
    await until(lambda: disconnected() == ())
    again.cancel()
    await until(lambda: disconnected() == ("p0",))
