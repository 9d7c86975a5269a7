"""Seed 000 rule 48 on PostgreSQL (the `coupons` table, `ledger_execute`): coupons issued,
redeemed for entries, given back and refused (`tests/support/coupons.py`), and over gRPC;
the audit after each test checks the books balance."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import asyncpg  # type: ignore[import-untyped]
import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from croupier.common.v1 import common_pb2
from croupier.wallet.adapters.coupons import PostgresCoupons
from croupier.wallet.service.coupons import Coupons
from croupier.wallet.service.games import GameMoney
from croupier.wallet.service.ledger import LedgerService
from croupier.wallet.v1 import wallet_pb2, wallet_pb2_grpc
from tests.support.coupons import EXPIRES, STORIES, Clock
from tests.support.prize_fund import BUY_IN, DEPOSIT, FEE, open_players, posted
from tests.support.table import status_of
from tests.support.wallet import SteppingClock


@pytest.mark.parametrize("story", STORIES, ids=lambda story: story.__name__)
async def test_coupons_on_postgres(
    ledger_service: LedgerService,
    wallet_pool: tuple[asyncpg.Pool, str],
    clock: SteppingClock,
    story: Callable[[GameMoney, Clock], Awaitable[None]],
) -> None:
    coupons = Coupons(PostgresCoupons(wallet_pool[0]), ledger_service)
    await story(GameMoney(ledger_service, coupons), clock)


async def test_rule_48_coupons_over_grpc_my_coupons_and_clear_refusals(
    wallet_channel: grpc.aio.Channel, ledger_service: LedgerService
) -> None:
    """IssueCoupon, ListCoupons ("My coupons": held, then expired) and an entry paid with
    someone else's coupon refused NOT_FOUND, nothing moved."""
    await open_players(ledger_service, "a", "b")
    stub = wallet_pb2_grpc.WalletStub(wallet_channel)
    expires = Timestamp(seconds=int(EXPIRES.timestamp()))
    issue = wallet_pb2.IssueCouponRequest(
        coupon_id="cp-1",
        player_id="a",
        game=common_pb2.GAME_POKER,
        value=common_pb2.Money(amount_minor=BUY_IN + FEE, currency="USD"),
        expires_at=expires,
    )
    issued = await stub.IssueCoupon(issue)
    assert (issued.coupon.status, issued.replayed) == (wallet_pb2.COUPON_STATUS_HELD, False)
    assert (await stub.IssueCoupon(issue)).replayed
    listed = await stub.ListCoupons(wallet_pb2.ListCouponsRequest(player_id="a"))
    assert [c.coupon_id for c in listed.coupons] == ["cp-1"]
    assert not (await stub.ListCoupons(wallet_pb2.ListCouponsRequest(player_id="b"))).coupons
    code, details = await status_of(
        stub.EnterTournament(
            wallet_pb2.EnterTournamentRequest(
                entry_id="T:b",
                tournament_id="T",
                game=common_pb2.GAME_POKER,
                player_id="b",
                buy_in=common_pb2.Money(amount_minor=BUY_IN, currency="USD"),
                fee=common_pb2.Money(amount_minor=FEE, currency="USD"),
                coupon_id="cp-1",
            )
        )
    )
    assert code is grpc.StatusCode.NOT_FOUND and "My coupons" in details
    assert await posted(ledger_service, "player_cash:b:USD") == DEPOSIT
    code, _ = await status_of(stub.IssueCoupon(wallet_pb2.IssueCouponRequest(coupon_id="cp-2")))
    assert code is grpc.StatusCode.INVALID_ARGUMENT
