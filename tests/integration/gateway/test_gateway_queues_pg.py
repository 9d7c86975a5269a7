"""`LeaveQueue` through the gateway, on the lobby (its own PostgreSQL schema) filling its
built-in Sit & Go and Spin queues on the real director (its own schema, the wallet
service on PostgreSQL; the director's tests' `platform` fixture): a player who joined a
queue and leaves it is unregistered and refunded, and `ListQueues` no longer counts him;
leaving a queue he is not in is NOT_FOUND and changes nothing."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import grpc
import pytest

from croupier.gateway.adapters.wallet import GrpcWallet
from croupier.gateway.v1 import gateway_pb2 as gw
from croupier.lobby.adapters.director_grpc import load_templates
from tests.integration.tournament.conftest import platform  # noqa: F401 - the fixture
from tests.integration.tournament.platform import DEPOSIT, USD, Platform
from tests.integration.tournament.test_lobby_queues_pg import lobby_built
from tests.support.gateway import bearer, served_gateway
from tests.unit.tournament.hosted import hosted_tables

SNG = "sng-naiko-6max-10"
SPIN = "spin-nlhe-5"
(TEMPLATE,) = [t for t in load_templates() if t.queue_id == SNG]
ENTRY = TEMPLATE.buy_in + TEMPLATE.fee


def _as(player: str) -> tuple[tuple[str, str]]:
    return bearer(player, now=time.time())


@asynccontextmanager
async def queues_gateway(
    platform: Platform,  # noqa: F811 - the fixture
    postgres_dsn: str,
    schema: str,
) -> AsyncIterator[Any]:
    """The gateway's stub in front of the lobby (queues on the platform's director) and
    the platform's wallet."""
    await platform.start_director()
    wallet = GrpcWallet(platform.wallet_address)
    try:
        async with (
            hosted_tables("gateway-leave-queue") as hosted,
            lobby_built(platform, postgres_dsn, schema, hosted.host) as wired,
            served_gateway(beside=[wired.service()], wallet=wallet, clock=time.time) as gateway,
        ):
            yield gateway.stub
    finally:
        await wallet.close()


async def _queue(stub: Any, queue_id: str, reader: str = "z") -> tuple[str, int, int]:
    """The queue as `ListQueues` shows it to `reader`: its filling tournament, the players
    waiting in it, the players it starts with."""
    listed = await stub.ListQueues(gw.ListQueuesRequest(), metadata=_as(reader))
    (queue,) = [q for q in listed.queues if q.queue_id == queue_id]
    return queue.tournament_id, queue.waiting, queue.players


async def _balance(stub: Any, player: str) -> int:
    answer = await stub.GetBalance(gw.GetBalanceRequest(currency=USD), metadata=_as(player))
    amount: int = answer.balance.amount_minor
    return amount


async def _refusal(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    reason = dict(caught.value.trailing_metadata() or ()).get("x-error-reason", "")
    return caught.value.code(), str(reason)


async def test_a_player_who_leaves_a_sit_and_go_queue_is_no_longer_counted_and_is_refunded(
    platform: Platform,  # noqa: F811 - the fixture
    postgres_dsn: str,
    unique: Callable[[str], str],
) -> None:
    async with queues_gateway(platform, postgres_dsn, unique("lobby")) as stub:
        assert await _queue(stub, SNG) == ("", 0, 6)
        joined = await stub.JoinQueue(gw.JoinQueueRequest(queue_id=SNG), metadata=_as("a"))
        await stub.JoinQueue(gw.JoinQueueRequest(queue_id=SNG), metadata=_as("b"))
        tid = joined.tournament_id
        assert await _queue(stub, SNG) == (tid, 2, 6)
        assert await _balance(stub, "a") == DEPOSIT - ENTRY

        left = await stub.LeaveQueue(gw.LeaveQueueRequest(queue_id=SNG), metadata=_as("a"))
        assert left == gw.LeaveQueueResponse()
        assert await _queue(stub, SNG) == (tid, 1, 6)  # b alone, in the same tournament
        assert await _queue(stub, SNG, reader="a") == (tid, 1, 6)
        assert await _balance(stub, "a") == DEPOSIT  # buy-in and fee refunded
        assert await _balance(stub, "b") == DEPOSIT - ENTRY
        assert platform.wired is not None
        assert (await platform.wired.director.get(tid)).players() == ("b",)

        # He may come back: the same tournament, counted again.
        back = await stub.JoinQueue(gw.JoinQueueRequest(queue_id=SNG), metadata=_as("a"))
        assert (back.tournament_id, back.waiting) == (tid, 2)
        assert await _queue(stub, SNG) == (tid, 2, 6)


async def test_leaving_a_queue_one_is_not_in_is_not_found_and_changes_nothing(
    platform: Platform,  # noqa: F811 - the fixture
    postgres_dsn: str,
    unique: Callable[[str], str],
) -> None:
    async with queues_gateway(platform, postgres_dsn, unique("lobby")) as stub:

        async def leave(player: str, queue_id: str) -> tuple[grpc.StatusCode, str]:
            request = gw.LeaveQueueRequest(queue_id=queue_id)
            return await _refusal(stub.LeaveQueue(request, metadata=_as(player)))

        # A queue nobody has joined yet: no tournament is filling.
        assert await leave("a", SPIN) == (grpc.StatusCode.NOT_FOUND, "not_queued")
        # A queue others are in: the director does not know him there.
        joined = await stub.JoinQueue(gw.JoinQueueRequest(queue_id=SNG), metadata=_as("b"))
        assert await leave("a", SNG) == (grpc.StatusCode.NOT_FOUND, "not_registered")
        assert await _queue(stub, SNG) == (joined.tournament_id, 1, 6)
        assert await _balance(stub, "b") == DEPOSIT - ENTRY
        assert await _balance(stub, "a") == DEPOSIT
        # Leaving twice: the second time he is not in it any more.
        await stub.LeaveQueue(gw.LeaveQueueRequest(queue_id=SNG), metadata=_as("b"))
        assert await leave("b", SNG) == (grpc.StatusCode.NOT_FOUND, "not_registered")
        assert await _queue(stub, SNG) == (joined.tournament_id, 0, 6)
        assert await _balance(stub, "b") == DEPOSIT  # refunded once
        # No such queue; no queue named at all (the gateway's own check).
        assert await leave("a", "no-such-queue") == (grpc.StatusCode.NOT_FOUND, "unknown_queue")
        assert await leave("a", "") == (grpc.StatusCode.INVALID_ARGUMENT, "invalid_request")
