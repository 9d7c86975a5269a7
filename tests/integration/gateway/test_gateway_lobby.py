"""The lobby through the gateway, on the lobby's PostgreSQL and a table host on Kafka: the
player who opens, joins, queues or cancels is always the token's (no request names one);
another player's ticket is not his to read or cancel; the listing streams live; malformed
requests are INVALID_ARGUMENT before anything reaches the lobby; an account's limits are
its player's to read and an operator's to set."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

import grpc
import pytest
from google.protobuf.message import Message

from croupier.backgammon.v1 import backgammon_pb2
from croupier.common.v1 import common_pb2
from croupier.gateway.v1 import gateway_pb2 as pb
from croupier.kit.auth import OPERATOR_ROLE
from croupier.lobby.v1 import lobby_pb2
from croupier.poker.v1 import poker_pb2
from croupier.table.v1 import table_pb2
from tests.support.gateway import bearer, connect_call, token
from tests.support.lobby_gateway import LobbyPlatform, lobby_gateway
from tests.support.table import status_of

POKER = table_pb2.GameOptions(
    poker=poker_pb2.Options(variant=poker_pb2.VARIANT_NLHE, small_blind=1, big_blind=2, seats=2)
)
BACKGAMMON = table_pb2.GameOptions(
    backgammon=backgammon_pb2.Options(mode=backgammon_pb2.MODE_SINGLE)
)


@pytest.fixture
async def platform(
    kafka_bootstrap: str, postgres_dsn: str, unique: Callable[[str], str]
) -> AsyncIterator[LobbyPlatform]:
    async with lobby_gateway(kafka_bootstrap, postgres_dsn, unique("lobby_gw")) as platform:
        yield platform


def as_(player: str) -> tuple[tuple[str, str]]:
    return bearer(player, now=time.time())


def as_operator(player: str) -> tuple[tuple[str, str]]:
    return bearer(player, now=time.time(), roles=frozenset({OPERATOR_ROLE}))


async def test_an_operator_sets_an_accounts_limits_and_its_player_reads_them(
    platform: LobbyPlatform,
) -> None:
    stub = platform.gateway.stub

    async def bobs_limits() -> tuple[list[tuple[str, int]], bool]:
        mine = await stub.GetAccountLimits(pb.GetAccountLimitsRequest(), metadata=as_("bob"))
        return [(m.currency, m.amount_minor) for m in mine.max_stakes], mine.self_excluded

    assert await bobs_limits() == ([], False)  # none set: not limited
    limit = pb.SetAccountLimitsRequest(
        player_id="bob", max_stakes=[common_pb2.Money(amount_minor=1, currency="CHIP")]
    )
    for player in ("bob", "ana"):  # his own limits, or another's: neither is a player's call
        code, details = await status_of(stub.SetAccountLimits(limit, metadata=as_(player)))
        assert code is grpc.StatusCode.PERMISSION_DENIED
        assert "operator" in details
    # The role is checked before the request's shape: a player learns nothing from it.
    malformed = pb.SetAccountLimitsRequest(player_id="b\x00b")
    code, _ = await status_of(stub.SetAccountLimits(malformed, metadata=as_("bob")))
    assert code is grpc.StatusCode.PERMISSION_DENIED
    assert await bobs_limits() == ([], False)

    code, _ = await status_of(stub.SetAccountLimits(malformed, metadata=as_operator("olga")))
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    twice = pb.SetAccountLimitsRequest(player_id="bob", max_stakes=[limit.max_stakes[0]] * 2)
    code, _ = await status_of(stub.SetAccountLimits(twice, metadata=as_operator("olga")))
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    await stub.SetAccountLimits(limit, metadata=as_operator("olga"))
    assert await bobs_limits() == ([("CHIP", 1)], False)

    # The lobby holds him to it: a big blind of 2 CHIP is above his limit.
    opened = await stub.OpenTable(
        pb.OpenTableRequest(request_key="ana-1", options=POKER, stack=100), metadata=as_("ana")
    )
    join = pb.JoinTableRequest(table_id=opened.table.table_id, stack=100)
    code, _ = await status_of(stub.JoinTable(join, metadata=as_("bob")))
    assert code is grpc.StatusCode.FAILED_PRECONDITION
    excluded = pb.SetAccountLimitsRequest(player_id="bob", self_excluded=True)
    await stub.SetAccountLimits(excluded, metadata=as_operator("olga"))
    assert await bobs_limits() == ([], True)
    code, details = await status_of(stub.JoinTable(join, metadata=as_("bob")))
    assert (code, "self-excluded" in details) == (grpc.StatusCode.FAILED_PRECONDITION, True)


async def test_the_opener_and_the_joiner_are_the_tokens_players(platform: LobbyPlatform) -> None:
    stub = platform.gateway.stub
    opened = await stub.OpenTable(
        pb.OpenTableRequest(request_key="ana-1", options=POKER, stack=100), metadata=as_("ana")
    )
    table_id = opened.table.table_id
    assert list(opened.table.seated) == ["ana"]
    joined = await stub.JoinTable(
        pb.JoinTableRequest(table_id=table_id, stack=100), metadata=as_("bob")
    )
    assert (joined.seat, list(joined.table.seated)) == (1, ["ana", "bob"])
    assert platform.host.view(table_id, "").seated == ("ana", "bob")
    listed = await stub.ListTables(pb.ListTablesRequest(), metadata=as_("carol"))
    assert [list(t.seated) for t in listed.tables if t.table_id == table_id] == [["ana", "bob"]]

    # Each sees his own cards only, through the gateway.
    view = await stub.GetTableView(
        pb.GetTableViewRequest(table_id=table_id, view_format=table_pb2.VIEW_FORMAT_JSON),
        metadata=as_("bob"),
    )
    assert '"hole_cards"' in view.view.view_json
    ana_cards = {
        card
        for seat in dict(platform.host.view(table_id, "ana").view)["hand"]["seats"]
        if seat["player"] == "ana"
        for card in seat["hole_cards"]
    }
    assert not any(f'"{card}"' in view.view.view_json for card in ana_cards)


async def test_a_ticket_is_its_owners_only(platform: LobbyPlatform) -> None:
    stub = platform.gateway.stub
    found = await stub.FindGame(
        pb.FindGameRequest(request_key="ana-q", options=BACKGAMMON, min_stake=0, max_stake=0),
        metadata=as_("ana"),
    )
    ticket = found.ticket
    assert (ticket.player_id, ticket.status) == ("ana", lobby_pb2.TICKET_STATUS_WAITING)
    request = pb.GetTicketRequest(ticket_id=ticket.ticket_id)
    code, _ = await status_of(stub.GetTicket(request, metadata=as_("bob")))
    assert code is grpc.StatusCode.NOT_FOUND
    cancel = pb.CancelTicketRequest(ticket_id=ticket.ticket_id)
    code, _ = await status_of(stub.CancelTicket(cancel, metadata=as_("bob")))
    assert code in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED)
    mine = await stub.GetTicket(request, metadata=as_("ana"))
    assert mine.ticket.status == lobby_pb2.TICKET_STATUS_WAITING
    cancelled = await stub.CancelTicket(cancel, metadata=as_("ana"))
    assert cancelled.ticket.status == lobby_pb2.TICKET_STATUS_CANCELLED


async def test_the_listing_streams_a_table_opened_after_the_watch_began(
    platform: LobbyPlatform,
) -> None:
    stub = platform.gateway.stub
    stream = stub.WatchTables(pb.WatchTablesRequest(), metadata=as_("carol"))
    try:
        await asyncio.sleep(0.3)  # the watch is open before the table
        opened = await stub.OpenTable(
            pb.OpenTableRequest(request_key="ana-2", options=BACKGAMMON), metadata=as_("ana")
        )
        async with asyncio.timeout(10):
            while True:
                change = await stream.read()
                # listed when opened, then again once the opener sits
                if change.table.table_id == opened.table.table_id and change.table.seated:
                    break
        assert list(change.table.seated) == ["ana"]
    finally:
        stream.cancel()


async def test_the_waiting_list_is_the_tokens_player_own(platform: LobbyPlatform) -> None:
    stub = platform.gateway.stub
    join = pb.JoinWaitingListRequest(options=POKER, stack=100)
    assert (await stub.JoinWaitingList(join, metadata=as_("ana"))).position == 1
    assert (await stub.JoinWaitingList(join, metadata=as_("bob"))).position == 2
    code, _ = await status_of(stub.JoinWaitingList(join, metadata=as_("bob")))
    assert code is grpc.StatusCode.ALREADY_EXISTS  # bob is on it already
    leave = pb.LeaveWaitingListRequest(options=POKER)
    await stub.LeaveWaitingList(leave, metadata=as_("ana"))
    code, _ = await status_of(stub.LeaveWaitingList(leave, metadata=as_("ana")))
    assert code is grpc.StatusCode.NOT_FOUND  # ana left; bob's place is untouched
    code, _ = await status_of(stub.JoinWaitingList(join, metadata=as_("bob")))
    assert code is grpc.StatusCode.ALREADY_EXISTS


async def test_ratings_are_the_callers_or_a_named_players(platform: LobbyPlatform) -> None:
    stub = platform.gateway.stub
    mine = await stub.GetRating(
        pb.GetRatingRequest(game=common_pb2.GAME_BACKGAMMON), metadata=as_("ana")
    )
    assert (mine.rating, mine.experience) == (1500.0, 0)  # FIBS's start
    other = await stub.GetRating(
        pb.GetRatingRequest(player_id="bob", game=common_pb2.GAME_POKER), metadata=as_("ana")
    )
    assert other.experience == 0
    code, _ = await status_of(stub.GetRating(pb.GetRatingRequest(), metadata=as_("ana")))
    assert code is grpc.StatusCode.INVALID_ARGUMENT  # no game named


async def test_queues_are_listed_and_an_unknown_one_is_not_found(
    platform: LobbyPlatform,
) -> None:
    stub = platform.gateway.stub
    listed = await stub.ListQueues(pb.ListQueuesRequest(), metadata=as_("ana"))
    direct = await platform.lobby.queues.listed()
    assert [q.queue_id for q in listed.queues] == [q.template.queue_id for q in direct]
    code, _ = await status_of(
        stub.JoinQueue(pb.JoinQueueRequest(queue_id="no-such-queue"), metadata=as_("ana"))
    )
    assert code is grpc.StatusCode.NOT_FOUND


@pytest.mark.parametrize(
    ("method", "malformed"),
    [
        ("JoinTable", pb.JoinTableRequest(table_id="")),
        ("OpenTable", pb.OpenTableRequest(request_key="", options=BACKGAMMON)),
        ("InvitePlayers", pb.InvitePlayersRequest(table_id="t", invited=["x"] * 51)),
        ("GetTicket", pb.GetTicketRequest(ticket_id="t\n1")),
        ("ListTables", pb.ListTablesRequest(page={"page_size": 501})),
        ("JoinQueue", pb.JoinQueueRequest(queue_id="q" * 129)),
        ("GetRating", pb.GetRatingRequest(player_id="b\x00b", game=common_pb2.GAME_POKER)),
    ],
    ids=[
        "no-table",
        "no-request-key",
        "too-many-invited",
        "control-character",
        "page-size",
        "long-queue-id",
        "control-in-player",
    ],
)
async def test_a_malformed_lobby_request_is_invalid_argument_over_grpc_and_connect(
    platform: LobbyPlatform, method: str, malformed: Message
) -> None:
    code, _ = await status_of(
        getattr(platform.gateway.stub, method)(malformed, metadata=as_("ana"))
    )
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    status, body = await connect_call(
        platform.gateway.http,
        method,
        malformed,
        "Bearer " + token("ana", now=time.time()),
    )
    assert (status, body["code"]) == (400, "invalid_argument")
    listed = await platform.gateway.stub.ListTables(pb.ListTablesRequest(), metadata=as_("ana"))
    assert list(listed.tables) == []
