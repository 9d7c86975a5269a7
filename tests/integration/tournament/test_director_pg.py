"""The director over real gRPC, in process, on the real PostgreSQL, moving money through
the real wallet service (its own schema, served on its own port): registration (rules
3-6), unregistering (rule 5), start or cancel at the start time (rules 1, 7, 8), void
(rule 44), the event stream and outbox, and a restart over the same database."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from croupier.common.v1 import common_pb2
from croupier.gateway.adapters.tournaments import GrpcTournaments
from croupier.gateway.v1 import gateway_pb2 as gw
from croupier.tournament import codec
from croupier.tournament.core.coupon_prizes import CouponPrize
from croupier.tournament.core.ranking import Place
from croupier.tournament.core.seating import initial_seating
from croupier.tournament.service.coupon_awards import award_coupons
from croupier.tournament.v1 import tournament_pb2 as pb
from croupier.tournament.v1 import tournament_pb2_grpc
from croupier.wallet.v1 import wallet_pb2
from tests.integration.tournament.conftest import fund_prizes
from tests.integration.tournament.platform import DEPOSIT, Platform
from tests.support.gateway import bearer, served_gateway
from tests.support.table import status_of
from tests.unit.tournament.director_sample import (
    BUY_IN,
    FEE,
    START,
    STARTING_CHIPS,
    fixed_seed,
    sample_settings,
)


async def _create(
    stub: tournament_pb2_grpc.TournamentDirectorStub, key: str = "friday", **changes: object
) -> str:
    request = pb.CreateTournamentRequest(
        request_key=key, settings=codec.settings_to_proto(sample_settings(**changes))
    )
    response = await stub.CreateTournament(request)
    return response.tournament_id


async def _register(
    stub: tournament_pb2_grpc.TournamentDirectorStub, tid: str, player: str
) -> None:
    await stub.Register(pb.RegisterRequest(tournament_id=tid, player_id=player))


async def _refused(call: object, code: grpc.StatusCode, reason: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call  # type: ignore[misc]
    assert info.value.code() == code, info.value.details()
    trailers = dict(info.value.trailing_metadata() or ())
    assert trailers.get("x-error-reason") == reason, (trailers, info.value.details())


async def test_create_is_idempotent_by_request_key(platform: Platform) -> None:
    stub = await platform.start_director()
    request = pb.CreateTournamentRequest(
        request_key="friday", settings=codec.settings_to_proto(sample_settings())
    )
    first = await stub.CreateTournament(request)
    again = await stub.CreateTournament(request)
    assert (again.tournament_id, first.replayed, again.replayed) == (
        first.tournament_id,
        False,
        True,
    )
    assert (
        await platform.pool.fetchval(f'SELECT count(*) FROM "{platform.schema}".tournaments') == 1
    )
    assert await platform.outbox_events() == 1
    other = pb.CreateTournamentRequest(
        request_key="friday", settings=codec.settings_to_proto(sample_settings(max_players=5))
    )
    await _refused(
        stub.CreateTournament(other), grpc.StatusCode.ALREADY_EXISTS, "request_key_reused"
    )


async def test_rules_3_to_6_registration_through_the_wallet(platform: Platform) -> None:
    stub = await platform.start_director()
    tid = await _create(stub, max_players=3)
    for player in "abc":
        await _register(stub, tid, player)
        assert await platform.balance(player) == DEPOSIT - BUY_IN - FEE
    # Twice, full, with a coupon it does not take, unknown tournament: refused, nothing moved.
    await _refused(_register(stub, tid, "a"), grpc.StatusCode.ALREADY_EXISTS, "already_registered")
    await _refused(
        _register(stub, tid, "d"), grpc.StatusCode.FAILED_PRECONDITION, "tournament_full"
    )
    await _refused(
        stub.Register(pb.RegisterRequest(tournament_id=tid, player_id="d", coupon_id="cp")),
        grpc.StatusCode.FAILED_PRECONDITION,
        "coupons_not_accepted",
    )
    await _refused(_register(stub, "t-none", "d"), grpc.StatusCode.NOT_FOUND, "unknown_tournament")
    assert await platform.balance("a") == DEPOSIT - BUY_IN - FEE
    assert await platform.balance("d") == DEPOSIT
    # Rule 5: unregistering before the start refunds buy-in and fee.
    await stub.Unregister(pb.UnregisterRequest(tournament_id=tid, player_id="c"))
    assert await platform.balance("c") == DEPOSIT
    await _register(stub, tid, "d")
    lobby = await stub.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
    assert list(lobby.player_ids) == ["a", "b", "d"]
    assert lobby.status == pb.TOURNAMENT_STATUS_REGISTERING
    assert lobby.prize_pool.amount_minor == 3 * BUY_IN
    assert [p.amount_minor for p in lobby.top_prizes] == [3 * BUY_IN]
    assert len(lobby.settings.payouts) == 2 and lobby.current_level == 1
    assert await platform.outbox_events() == 1 + 3 + 1 + 1  # created, 3 in, 1 out, 1 in


async def _coupons(platform: Platform, player: str) -> dict[str, int]:
    """The player's coupons ("My coupons", rule 48): id → status."""
    answer = await platform.wallet.ListCoupons(wallet_pb2.ListCouponsRequest(player_id=player))
    return {coupon.coupon_id: coupon.status for coupon in answer.coupons}


async def test_rule_48_a_coupon_pays_the_entry_through_the_wallet(platform: Platform) -> None:
    stub = await platform.start_director()
    await fund_prizes(platform.wallet, "rummy")
    tid = await _create(stub, coupons_accepted=True)
    expires = _in_days(30)
    for coupon_id, player, value in (("cp-a", "a", BUY_IN + FEE), ("cp-small", "b", BUY_IN)):
        await platform.wallet.IssueCoupon(
            wallet_pb2.IssueCouponRequest(
                coupon_id=coupon_id,
                player_id=player,
                game=common_pb2.GAME_RUMMY,
                value=common_pb2.Money(amount_minor=value, currency="USD"),
                expires_at=expires,
            )
        )
    await stub.Register(pb.RegisterRequest(tournament_id=tid, player_id="a", coupon_id="cp-a"))
    # The player paid nothing: the prize fund paid the buy-in into the pool, no fee.
    assert await platform.balance("a") == DEPOSIT
    assert await _coupons(platform, "a") == {"cp-a": wallet_pb2.COUPON_STATUS_REDEEMED}
    lobby = await stub.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
    assert list(lobby.player_ids) == ["a"] and lobby.prize_pool.amount_minor == BUY_IN
    # Someone else's coupon, one worth less than the entry, a bad id: refused, nothing moved.
    for player, coupon_id, code, reason in (
        ("c", "cp-a", grpc.StatusCode.FAILED_PRECONDITION, "coupon_not_found"),
        ("b", "cp-small", grpc.StatusCode.FAILED_PRECONDITION, "coupon_not_usable"),
        ("b", "bad id", grpc.StatusCode.INVALID_ARGUMENT, "invalid_coupon"),
    ):
        request = pb.RegisterRequest(tournament_id=tid, player_id=player, coupon_id=coupon_id)
        await _refused(stub.Register(request), code, reason)
    assert await platform.balance("b") == DEPOSIT and await platform.balance("c") == DEPOSIT
    assert await _coupons(platform, "b") == {"cp-small": wallet_pb2.COUPON_STATUS_HELD}
    # Rule 5: unregistering before the start gives the coupon back.
    await stub.Unregister(pb.UnregisterRequest(tournament_id=tid, player_id="a"))
    assert await _coupons(platform, "a") == {"cp-a": wallet_pb2.COUPON_STATUS_HELD}
    assert await platform.balance("a") == DEPOSIT


async def test_rule_48_coupon_prizes_are_issued_by_the_wallet_once(platform: Platform) -> None:
    """Coupon prizes through the real wallet: issued as coupons (not money), and issued
    again by a restarted director, later, they are not issued twice."""
    stub = await platform.start_director()
    prizes = (CouponPrize(1, BUY_IN + FEE, 30), CouponPrize(2, BUY_IN, 7))
    tid = await _create(stub, coupon_prizes=prizes)
    assert platform.wired is not None and platform.wallet_client is not None
    record = await platform.wired.director.get(tid)
    places = [Place(1, ("a",)), Place(2, ("b",)), Place(3, ("c",))]
    ended = datetime.now(UTC)
    for now in (ended, ended + timedelta(hours=1)):
        assert await award_coupons(platform.wallet_client, record, places, now) == 2
    assert await _coupons(platform, "a") == {f"{tid}:place-1": wallet_pb2.COUPON_STATUS_HELD}
    assert await _coupons(platform, "b") == {f"{tid}:place-2": wallet_pb2.COUPON_STATUS_HELD}
    assert await _coupons(platform, "c") == {}
    assert [await platform.balance(p) for p in "abc"] == [DEPOSIT] * 3  # not money
    lobby = await stub.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
    assert [(c.place, c.value_minor) for c in lobby.settings.coupon_prizes] == [
        (1, BUY_IN + FEE),
        (2, BUY_IN),
    ]


async def test_rule_1_below_the_minimum_at_the_start_cancels_with_full_refunds(
    platform: Platform,
) -> None:
    stub = await platform.start_director()
    tid = await _create(stub)
    for player in "ab":
        await _register(stub, tid, player)
    assert platform.wired is not None
    platform.clock.now = START
    assert await platform.wired.director.start_due() == [tid]
    assert await platform.balance("a") == await platform.balance("b") == DEPOSIT
    lobby = await stub.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
    assert lobby.status == pb.TOURNAMENT_STATUS_CANCELLED and not lobby.player_ids


async def test_rules_7_8_the_start_seats_everyone_and_closes_registration(
    platform: Platform,
) -> None:
    stub = await platform.start_director()
    tid = await _create(stub)
    for player in "abcde":
        await _register(stub, tid, player)
    before = await stub.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
    assert before.seating_seed == ""  # drawn at creation, secret until the seats are drawn
    assert platform.wired is not None
    platform.clock.now = START
    await platform.wired.director.start_due()
    lobby = await stub.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
    assert lobby.status == pb.TOURNAMENT_STATUS_RUNNING
    assert lobby.seating_seed == fixed_seed(7).hex()
    drawn = initial_seating(list("abcde"), 4, fixed_seed(7))
    assert {(s.table, s.seat, s.player_id) for s in lobby.seats} == {
        (t.number, seat, p) for t in drawn.tables for seat, p in t.seats
    }
    standings = await stub.GetStandings(pb.GetStandingsRequest(tournament_id=tid))
    # Everyone has the starting stack, less the first round's fee of level 1 (rule 20).
    first_fee = sample_settings().levels[0].round_fee
    assert {s.player_id: s.chips for s in standings.standings} == dict.fromkeys(
        "abcde", STARTING_CHIPS - first_fee
    )
    await _refused(
        _register(stub, tid, "f"), grpc.StatusCode.FAILED_PRECONDITION, "registration_closed"
    )
    await _refused(
        stub.Unregister(pb.UnregisterRequest(tournament_id=tid, player_id="a")),
        grpc.StatusCode.FAILED_PRECONDITION,
        "registration_closed",
    )
    await _refused(
        stub.Rebuy(pb.RebuyRequest(tournament_id=tid, player_id="a", accept=False)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "no_rebuy_offer",
    )
    assert await platform.balance("f") == DEPOSIT
    assert await platform.balance("a") == DEPOSIT - BUY_IN - FEE


async def test_rule_44_voiding_refunds_through_the_wallet(platform: Platform) -> None:
    stub = await platform.start_director()
    tid = await _create(stub)
    for player in "abc":
        await _register(stub, tid, player)
    assert platform.wired is not None
    platform.clock.now = START
    await platform.wired.director.start_due()
    voided = await stub.VoidTournament(pb.VoidTournamentRequest(tournament_id=tid, reason="crash"))
    assert voided.refunds > 0
    for player in "abc":
        assert await platform.balance(player) == DEPOSIT
    lobby = await stub.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
    assert lobby.status == pb.TOURNAMENT_STATUS_VOIDED


async def test_watching_streams_the_events(platform: Platform) -> None:
    stub = await platform.start_director()
    tid = await _create(stub)
    call = stub.WatchTournament(pb.WatchTournamentRequest(tournament_id=tid))
    first = await asyncio.wait_for(call.read(), 5)
    assert first.event.WhichOneof("kind") == "created" and first.event.sequence == 1
    await _register(stub, tid, "a")
    second = await asyncio.wait_for(call.read(), 5)
    assert second.event.registered.player_id == "a" and second.event.sequence == 2
    call.cancel()


async def test_a_new_director_over_the_same_database_resumes_the_tournament(
    platform: Platform,
) -> None:
    stub = await platform.start_director()
    tid = await _create(stub)
    for player in "abc":
        await _register(stub, tid, player)
    await platform.stop_director()

    stub = await platform.start_director()
    lobby = await stub.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
    assert list(lobby.player_ids) == ["a", "b", "c"]
    await _refused(_register(stub, tid, "a"), grpc.StatusCode.ALREADY_EXISTS, "already_registered")
    await _register(stub, tid, "d")
    assert platform.wired is not None
    platform.clock.now = START
    await platform.wired.director.start_due()
    started = await stub.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
    announced = await platform.outbox_events()  # created, 4 in, 1 out, started, its rounds
    await platform.stop_director()

    stub = await platform.start_director()
    resumed = await stub.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
    assert resumed == started and resumed.status == pb.TOURNAMENT_STATUS_RUNNING
    assert platform.wired is not None
    assert await platform.wired.director.start_due() == []  # not started twice
    assert await platform.outbox_events() == announced
    for player in "abcd":
        assert await platform.balance(player) == DEPOSIT - BUY_IN - FEE


async def test_the_gateway_lists_tournaments_and_registers_the_tokens_player(
    platform: Platform,
) -> None:
    """Issue #20 through the real director on PostgreSQL: ListTournaments pages in start
    order; RegisterTournament registers the token's player, paying with his coupon."""
    stub = await platform.start_director()
    await fund_prizes(platform.wallet, "rummy")
    later = await _create(stub, "later", start_time=START.replace(hour=21))
    soon = await _create(stub, "soon", coupons_accepted=True)
    assert platform.host is not None
    director = GrpcTournaments(f"127.0.0.1:{platform.host.port}")
    try:
        async with served_gateway(beside=[], tournaments=director, clock=time.time) as gateway:
            first = await gateway.stub.ListTournaments(
                gw.ListTournamentsRequest(page={"page_size": 1}), metadata=_as("a")
            )
            assert [t.tournament_id for t in first.tournaments] == [soon]
            second = await gateway.stub.ListTournaments(
                gw.ListTournamentsRequest(page={"page_token": first.next_page_token}),
                metadata=_as("a"),
            )
            assert [t.tournament_id for t in second.tournaments] == [later]
            assert second.next_page_token == ""
            await platform.wallet.IssueCoupon(
                wallet_pb2.IssueCouponRequest(
                    coupon_id="cp-b",
                    player_id="b",
                    game=common_pb2.GAME_RUMMY,
                    value=common_pb2.Money(amount_minor=BUY_IN + FEE, currency="USD"),
                    expires_at=_in_days(30),
                )
            )
            registered = await gateway.stub.RegisterTournament(
                gw.RegisterTournamentRequest(tournament_id=soon, coupon_id="cp-b"),
                metadata=_as("b"),
            )
            assert registered.registered == 1
            listed = await gateway.stub.ListTournaments(
                gw.ListTournamentsRequest(), metadata=_as("a")
            )
            assert [(t.tournament_id, t.registered) for t in listed.tournaments] == [
                (soon, 1),
                (later, 0),
            ]
            assert await platform.balance("b") == DEPOSIT  # the coupon paid
            assert await _coupons(platform, "b") == {"cp-b": wallet_pb2.COUPON_STATUS_REDEEMED}
            code, _ = await status_of(
                gateway.stub.ListTournaments(
                    gw.ListTournamentsRequest(page={"page_token": "forged"}), metadata=_as("a")
                )
            )
            assert code is grpc.StatusCode.INVALID_ARGUMENT
    finally:
        await director.close()


def _as(player: str) -> tuple[tuple[str, str]]:
    return bearer(player, now=time.time())


def _in_days(days: int) -> Timestamp:
    at = Timestamp()
    at.FromDatetime(datetime.now(UTC) + timedelta(days=days))
    return at


async def test_rebuys_and_unregistering_refused_over_grpc_move_nothing(platform: Platform) -> None:
    """The rebuy and unregister refusals as a client gets them (the rules' own refusals,
    past the count, the level and the final table, are `tests/unit/tournament/
    test_rounds.py`'s, the same kinds through the kit's one status table)."""
    stub = await platform.start_director()
    tid = await _create(stub)
    await _register(stub, tid, "a")
    for call, code, reason in (
        (
            stub.Rebuy(pb.RebuyRequest(tournament_id="t-none", player_id="a", accept=True)),
            grpc.StatusCode.NOT_FOUND,
            "unknown_tournament",
        ),
        (
            stub.Unregister(pb.UnregisterRequest(tournament_id="t-none", player_id="a")),
            grpc.StatusCode.NOT_FOUND,
            "unknown_tournament",
        ),
        (
            stub.Rebuy(pb.RebuyRequest(tournament_id=tid, player_id="a", accept=True)),
            grpc.StatusCode.FAILED_PRECONDITION,
            "no_rebuy_offer",
        ),
        (
            stub.Rebuy(pb.RebuyRequest(tournament_id=tid, player_id="b", accept=True)),
            grpc.StatusCode.NOT_FOUND,
            "not_registered",
        ),
    ):
        await _refused(call, code, reason)
    assert await platform.balance("a") == DEPOSIT - BUY_IN - FEE
    assert await platform.balance("b") == DEPOSIT
    for player in "bc":
        await _register(stub, tid, player)
    assert platform.wired is not None
    platform.clock.now = START
    await platform.wired.director.start_due()
    await _refused(
        stub.Unregister(pb.UnregisterRequest(tournament_id=tid, player_id="a")),
        grpc.StatusCode.FAILED_PRECONDITION,
        "registration_closed",
    )
    assert await platform.balance("a") == DEPOSIT - BUY_IN - FEE


async def test_rule_16_a_second_rebuy_in_one_round_is_refused_over_grpc_and_moves_nothing(
    platform: Platform,
) -> None:
    """Rule 16, OQ 3: "a" at a running round (1,490 in hand + 10 paid = the starting 1,500)
    rebuys once; the starting stack he is owed when the round ends counts as chips he
    holds, so a second rebuy in the same round is refused before the wallet is asked
    (the sample allows two rebuys: the count is not the reason)."""
    stub = await platform.start_director()
    tid = await _create(stub)
    for player in "abcde":
        await _register(stub, tid, player)
    assert platform.wired is not None
    platform.clock.now = START
    await platform.wired.director.start_due()
    request = pb.RebuyRequest(tournament_id=tid, player_id="a", accept=True)
    assert (await stub.Rebuy(request)).chips == STARTING_CHIPS
    assert await platform.balance("a") == DEPOSIT - 2 * (BUY_IN + FEE)
    await _refused(stub.Rebuy(request), grpc.StatusCode.FAILED_PRECONDITION, "stack_above_start")
    assert await platform.balance("a") == DEPOSIT - 2 * (BUY_IN + FEE)
    lobby = await stub.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
    assert lobby.prize_pool.amount_minor == 6 * BUY_IN  # five buy-ins and one rebuy


async def test_rule_49_an_operator_disqualifies_a_player_over_grpc(platform: Platform) -> None:
    stub = await platform.start_director()
    tid = await _create(stub)
    for player in "abc":
        await _register(stub, tid, player)
    request = pb.DisqualifyPlayerRequest(tournament_id=tid, player_id="b", reason="abuse")
    await _refused(
        stub.DisqualifyPlayer(request), grpc.StatusCode.FAILED_PRECONDITION, "not_running"
    )
    assert platform.wired is not None
    platform.clock.now = START
    await platform.wired.director.start_due()
    for bad, code, reason in (
        (
            pb.DisqualifyPlayerRequest(tournament_id=tid, player_id="b"),
            grpc.StatusCode.INVALID_ARGUMENT,
            "invalid_text",
        ),
        (
            pb.DisqualifyPlayerRequest(tournament_id=tid, player_id="zed", reason="x"),
            grpc.StatusCode.NOT_FOUND,
            "unknown_player",
        ),
    ):
        await _refused(stub.DisqualifyPlayer(bad), code, reason)
    await stub.DisqualifyPlayer(request)  # while his round runs: out at once
    lobby = await stub.GetLobbyView(pb.GetLobbyViewRequest(tournament_id=tid))
    assert [s.player_id for s in lobby.ranking][-1] == "b"
    await _refused(
        stub.Rebuy(pb.RebuyRequest(tournament_id=tid, player_id="b", accept=True)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "disqualified",
    )
    await _refused(
        stub.DisqualifyPlayer(request), grpc.StatusCode.FAILED_PRECONDITION, "already_disqualified"
    )
    assert [await platform.balance(p) for p in "abc"] == [DEPOSIT - BUY_IN - FEE] * 3
    last = await platform.pool.fetchval(
        f'SELECT event FROM "{platform.schema}".tournament_events WHERE tournament_id = $1'
        " ORDER BY sequence DESC LIMIT 1",
        tid,
    )
    event = pb.TournamentEvent.FromString(last)
    assert (event.disqualified.player_id, event.disqualified.reason) == ("b", "abuse")
