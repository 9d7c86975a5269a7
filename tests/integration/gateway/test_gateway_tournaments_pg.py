"""The tournament methods through the gateway, on the real director (its own PostgreSQL
schema) moving money through the real wallet service (PostgreSQL), both served over gRPC
(the director's tests' `platform` fixture): `ListTournaments` pages the registering and
running tournaments soonest first, other statuses on request; `GetStandings` ranks the
entrants once it started; `Rebuy` sells the caller a rebuy while the rules allow it (the
wallet takes price and fee) and refuses it otherwise, moving nothing.

The players' money is read back through the gateway's own `GetBalance` (the gateway's
wallet port on the same wallet service)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import grpc
import pytest

from croupier.common.v1.common_pb2 import PageRequest
from croupier.gateway.adapters.tournaments import GrpcTournaments
from croupier.gateway.adapters.wallet import GrpcWallet
from croupier.gateway.v1 import gateway_pb2 as gw
from croupier.tournament import codec
from croupier.tournament.service.model import RebuyTerms
from croupier.tournament.v1 import tournament_pb2 as pb
from tests.integration.tournament.conftest import platform  # noqa: F401 - the fixture
from tests.integration.tournament.platform import DEPOSIT, USD, Platform
from tests.support.gateway import bearer, served_gateway
from tests.unit.tournament.director_sample import (
    BUY_IN,
    FEE,
    START,
    STARTING_CHIPS,
    sample_settings,
)

ENTRY = BUY_IN + FEE
FIRST_ROUND_FEE = sample_settings().levels[0].round_fee
ONE_REBUY = RebuyTerms(max_per_player=1, max_level=3, price=BUY_IN, fee=FEE, window_seconds=25)


def _as(player: str) -> tuple[tuple[str, str]]:
    return bearer(player, now=time.time())


@asynccontextmanager
async def gateway_on(platform: Platform) -> AsyncIterator[Any]:  # noqa: F811 - the fixture
    """The gateway's stub, its tournament calls going to the platform's director and its
    wallet calls to the platform's wallet."""
    assert platform.host is not None
    director = GrpcTournaments(f"127.0.0.1:{platform.host.port}")
    wallet = GrpcWallet(platform.wallet_address)
    try:
        async with served_gateway(
            beside=[], tournaments=director, wallet=wallet, clock=time.time
        ) as gateway:
            yield gateway.stub
    finally:
        await director.close()
        await wallet.close()


async def _create(director: Any, key: str, **changes: object) -> str:
    """A tournament of the sample's settings with `changes`, created on the director (its
    aio stub, typed Any as the stubs are typed sync)."""
    settings = codec.settings_to_proto(sample_settings(**changes))
    created = await director.CreateTournament(
        pb.CreateTournamentRequest(request_key=key, settings=settings)
    )
    tournament_id: str = created.tournament_id
    return tournament_id


async def _register(director: Any, tid: str, players: str) -> None:
    for player in players:
        await director.Register(pb.RegisterRequest(tournament_id=tid, player_id=player))


async def _start_due(platform: Platform) -> None:  # noqa: F811 - the fixture
    """The director's clock reaches START: what is due there starts, or is cancelled."""
    assert platform.wired is not None
    platform.clock.now = START
    await platform.wired.director.start_due()


async def _refusal(call: Any) -> tuple[grpc.StatusCode, str]:
    """The status and `x-error-reason` of a call that must be refused."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    reason = dict(caught.value.trailing_metadata() or ()).get("x-error-reason", "")
    return caught.value.code(), str(reason)


async def _balance(stub: Any, player: str) -> int:
    answer = await stub.GetBalance(gw.GetBalanceRequest(currency=USD), metadata=_as(player))
    amount: int = answer.balance.amount_minor
    return amount


def _listed(answer: gw.ListTournamentsResponse) -> list[tuple[str, int, int]]:
    return [(t.tournament_id, t.status, t.registered) for t in answer.tournaments]


async def test_list_tournaments_pages_the_registering_and_running_ones_soonest_first(
    platform: Platform,  # noqa: F811 - the fixture
) -> None:
    director = await platform.start_director()
    # Created out of start order: the listing orders them by start time.
    late = await _create(director, "late", start_time=START + timedelta(hours=2))
    soon = await _create(director, "soon")
    short = await _create(director, "short")  # one entrant at the start: cancelled
    middle = await _create(director, "middle", start_time=START + timedelta(hours=1))
    await _register(director, soon, "abc")
    await _register(director, short, "g")
    await _register(director, middle, "d")
    await _start_due(platform)
    running, registering = pb.TOURNAMENT_STATUS_RUNNING, pb.TOURNAMENT_STATUS_REGISTERING
    async with gateway_on(platform) as stub:
        everything = await stub.ListTournaments(gw.ListTournamentsRequest(), metadata=_as("e"))
        assert _listed(everything) == [
            (soon, running, 3),
            (middle, registering, 1),
            (late, registering, 0),
        ]
        assert everything.next_page_token == ""
        first = everything.tournaments[0]
        assert first.settings.name == "Friday Rummy 51"
        assert first.settings.start_time.ToDatetime().replace(tzinfo=START.tzinfo) == START
        assert (first.settings.buy_in.amount_minor, first.settings.buy_in.currency) == (
            BUY_IN,
            USD,
        )
        assert (first.settings.fee.amount_minor, first.settings.starting_chips) == (
            FEE,
            STARTING_CHIPS,
        )

        page = await stub.ListTournaments(
            gw.ListTournamentsRequest(page=PageRequest(page_size=2)), metadata=_as("e")
        )
        assert [t.tournament_id for t in page.tournaments] == [soon, middle]
        assert page.next_page_token
        rest = await stub.ListTournaments(
            gw.ListTournamentsRequest(
                page=PageRequest(page_size=2, page_token=page.next_page_token)
            ),
            metadata=_as("e"),
        )
        assert [t.tournament_id for t in rest.tournaments] == [late]
        assert rest.next_page_token == ""

        cancelled = await stub.ListTournaments(
            gw.ListTournamentsRequest(statuses=[pb.TOURNAMENT_STATUS_CANCELLED]),
            metadata=_as("e"),
        )
        assert [(t.tournament_id, t.status) for t in cancelled.tournaments] == [
            (short, pb.TOURNAMENT_STATUS_CANCELLED)
        ]
        # Two statuses asked for, two tournaments at the same start time: ordered by id,
        # and a page of one ends between them without losing or repeating either.
        tied: list[str] = []
        token = ""
        for _ in range(3):
            answer = await stub.ListTournaments(
                gw.ListTournamentsRequest(
                    statuses=[running, pb.TOURNAMENT_STATUS_CANCELLED],
                    page=PageRequest(page_size=1, page_token=token),
                ),
                metadata=_as("e"),
            )
            tied += [t.tournament_id for t in answer.tournaments]
            token = answer.next_page_token
            if not token:
                break
        assert tied == sorted([soon, short])

        too_big = stub.ListTournaments(
            gw.ListTournamentsRequest(page=PageRequest(page_size=501)), metadata=_as("e")
        )
        assert await _refusal(too_big) == (grpc.StatusCode.INVALID_ARGUMENT, "invalid_request")


async def test_standings_are_empty_before_the_start_then_list_every_entrant(
    platform: Platform,  # noqa: F811 - the fixture
) -> None:
    director = await platform.start_director()
    tid = await _create(director, "friday")
    await _register(director, tid, "abcde")
    async with gateway_on(platform) as stub:
        request = gw.GetStandingsRequest(tournament_id=tid)
        before = await stub.GetStandings(request, metadata=_as("a"))
        assert (list(before.standings), before.final) == ([], False)

        await _start_due(platform)
        # An entrant and a player who is not one read the same ranking.
        for reader in ("a", "g"):
            answer = await stub.GetStandings(request, metadata=_as(reader))
            assert answer.final is False
            assert sorted(s.player_id for s in answer.standings) == list("abcde")
            ranks = [s.rank for s in answer.standings]
            assert ranks == sorted(ranks) and ranks[0] == 1  # best place first
            for line in answer.standings:
                assert line.chips == STARTING_CHIPS - FIRST_ROUND_FEE  # rule 20
                assert (line.eliminated, line.rebuys, line.prize.amount_minor) == (False, 0, 0)

        unknown = stub.GetStandings(
            gw.GetStandingsRequest(tournament_id="t-none"), metadata=_as("a")
        )
        assert await _refusal(unknown) == (grpc.StatusCode.NOT_FOUND, "unknown_tournament")


async def test_a_rebuy_the_rules_allow_is_sold_to_the_caller_through_the_wallet(
    platform: Platform,  # noqa: F811 - the fixture
) -> None:
    """Rule 16: a player in a round whose chips in hand + the fee he paid into it are at
    most the starting stack may rebuy; the wallet takes price and fee into the pool. Five
    players at tables of four: two tables, so no final table yet (rule 15)."""
    director = await platform.start_director()
    tid = await _create(director, "friday", rebuys=ONE_REBUY)
    await _register(director, tid, "abcde")
    await _start_due(platform)
    async with gateway_on(platform) as stub:
        assert await _balance(stub, "a") == DEPOSIT - ENTRY
        bought = await stub.Rebuy(
            gw.RebuyRequest(tournament_id=tid, accept=True), metadata=_as("a")
        )
        assert bought.chips == STARTING_CHIPS  # rule 12
        assert await _balance(stub, "a") == DEPOSIT - 2 * ENTRY
        assert [await _balance(stub, p) for p in "bcde"] == [DEPOSIT - ENTRY] * 4
        standings = await stub.GetStandings(
            gw.GetStandingsRequest(tournament_id=tid), metadata=_as("a")
        )
        assert {s.player_id: s.rebuys for s in standings.standings} == {
            "a": 1,
            **dict.fromkeys("bcde", 0),
        }
        lobby = await stub.GetTournament(
            gw.GetTournamentRequest(tournament_id=tid), metadata=_as("a")
        )
        assert lobby.lobby.prize_pool.amount_minor == 6 * BUY_IN  # 5 buy-ins and the rebuy

        # Rule 13: one rebuy each here; the second is refused and takes nothing.
        again = stub.Rebuy(gw.RebuyRequest(tournament_id=tid, accept=True), metadata=_as("a"))
        assert await _refusal(again) == (grpc.StatusCode.FAILED_PRECONDITION, "rebuy_limit")
        assert await _balance(stub, "a") == DEPOSIT - 2 * ENTRY


async def test_a_rebuy_the_rules_do_not_allow_is_refused_and_moves_no_money(
    platform: Platform,  # noqa: F811 - the fixture
) -> None:
    director = await platform.start_director()
    waiting = await _create(director, "later", start_time=START + timedelta(hours=1))
    running = await _create(director, "friday")  # five players: two tables
    final = await _create(director, "final")  # three players: one table, the final one
    await _register(director, waiting, "a")
    await _register(director, running, "bcdfg")
    await _register(director, final, "ace")
    await _start_due(platform)
    async with gateway_on(platform) as stub:
        before = {p: await _balance(stub, p) for p in "abcdefg"}
        for player, tid, accept, refusal in (
            # Not started: there is nothing to rebuy into yet.
            ("a", waiting, True, (grpc.StatusCode.FAILED_PRECONDITION, "no_rebuy_offer")),
            # Running, but no offer to decline (he was not eliminated).
            ("b", running, False, (grpc.StatusCode.FAILED_PRECONDITION, "no_rebuy_offer")),
            # Rule 15: no rebuy once the final table has started.
            ("e", final, True, (grpc.StatusCode.FAILED_PRECONDITION, "final_table")),
            # Not his tournament; no such tournament.
            ("e", running, True, (grpc.StatusCode.NOT_FOUND, "not_registered")),
            ("c", "t-none", True, (grpc.StatusCode.NOT_FOUND, "unknown_tournament")),
        ):
            call = stub.Rebuy(
                gw.RebuyRequest(tournament_id=tid, accept=accept), metadata=_as(player)
            )
            assert await _refusal(call) == refusal, (player, tid, accept)
        assert {p: await _balance(stub, p) for p in "abcdefg"} == before
        for tid in (running, final):
            standings = await stub.GetStandings(
                gw.GetStandingsRequest(tournament_id=tid), metadata=_as("b")
            )
            assert {s.rebuys for s in standings.standings} == {0}
