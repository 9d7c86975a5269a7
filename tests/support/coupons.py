"""Coupon stories (seed 000 rule 48, OQ 29: a coupon is a wallet asset, not money), run by
the wallet's unit tests on the in-memory adapters and by its PostgreSQL tests: issued by
an operator, listed, redeemed for an entry (the prize fund pays the buy-in, the fee is
waived), given back on unregister and crash refund, and refused when it cannot pay."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol

import pytest

from croupier.wallet.core.coupons import CouponNotFound, CouponNotUsable, CouponStatus
from croupier.wallet.core.errors import IdempotencyConflict, InsufficientFunds
from croupier.wallet.core.model import TransferKind
from croupier.wallet.service.games import GameMoney
from tests.support.prize_fund import BUY_IN, DEPOSIT, FEE, FUND, fund_prizes, open_players, posted

POOL = "tournament_pool:T:USD"
EXPIRES = datetime(2026, 12, 6, tzinfo=UTC)
"""A week after the tests' clocks start (2026-11-29)."""


class Clock(Protocol):
    now: datetime


async def issue(
    money: GameMoney, coupon_id: str, player: str, *, game: str = "poker", value: int = 0
) -> bool:
    """The operator gives `player` a coupon worth `value` (default: one entry's price)
    until `EXPIRES`; replayed?"""
    assert money.coupons is not None
    _, replayed = await money.coupons.issue(
        coupon_id=coupon_id,
        player=player,
        game=game,
        currency="USD",
        value=value or BUY_IN + FEE,
        expires_at=EXPIRES,
    )
    return replayed


async def enter(money: GameMoney, player: str, coupon_id: str, entry: str = "") -> bool:
    result = await money.register(
        entry_id=entry or f"T:{player}",
        tournament_id="T",
        game="poker",
        player=player,
        currency="USD",
        buy_in=BUY_IN,
        fee=FEE,
        coupon_id=coupon_id,
    )
    return result.replayed


async def status(money: GameMoney, player: str, coupon_id: str) -> CouponStatus:
    assert money.coupons is not None
    (coupon,) = [c for c in await money.coupons.of_player(player) if c.coupon_id == coupon_id]
    return coupon.status


async def rule_48_a_coupon_pays_an_entry_and_comes_back_on_unregister(
    money: GameMoney, clock: Clock
) -> None:
    service = money.ledger
    await open_players(service, "a")
    await fund_prizes(service, 10_000)
    assert not await issue(money, "cp-1", "a")
    assert await issue(money, "cp-1", "a")  # the operator's request again: the same coupon
    with pytest.raises(IdempotencyConflict):
        await issue(money, "cp-1", "a", value=10 * BUY_IN)
    assert not await enter(money, "a", "cp-1")
    assert await posted(service, "player_cash:a:USD") == DEPOSIT  # no money of his
    assert await posted(service, POOL) == BUY_IN  # the pool as for a paid entry
    assert await posted(service, FUND) == 10_000 - BUY_IN  # the fee is waived
    paid = await service.transfer_record("T:a:coupon")
    assert paid.kind is TransferKind.TOURNAMENT_COUPON_ENTRY
    assert await status(money, "a", "cp-1") is CouponStatus.REDEEMED
    assert await enter(money, "a", "cp-1")  # sent again: the stored entry
    with pytest.raises(CouponNotUsable, match="redeemed"):  # one coupon, one entry
        await enter(money, "a", "cp-1", entry="T2:a")
    await money.unregister(entry_id="T:a", refund_id="T:a:refund")
    assert await status(money, "a", "cp-1") is CouponStatus.HELD
    assert await posted(service, POOL) == 0
    assert await posted(service, FUND) == 10_000


async def rule_48_a_coupon_that_cannot_pay_is_refused_and_stays_held(
    money: GameMoney, clock: Clock
) -> None:
    service = money.ledger
    await open_players(service, "a", "b")
    await issue(money, "cp-a", "a")
    with pytest.raises(CouponNotFound):  # b does not hold a's coupon
        await enter(money, "b", "cp-a")
    with pytest.raises(CouponNotFound):
        await enter(money, "b", "no-such-coupon")
    await issue(money, "cp-rummy", "a", game="rummy")
    with pytest.raises(CouponNotUsable, match="rummy"):
        await enter(money, "a", "cp-rummy")
    await issue(money, "cp-small", "a", value=BUY_IN)
    with pytest.raises(CouponNotUsable, match="less than the entry price"):
        await enter(money, "a", "cp-small")
    with pytest.raises(InsufficientFunds, match=FUND):  # the prize fund is empty
        await enter(money, "a", "cp-a")
    assert await status(money, "a", "cp-a") is CouponStatus.HELD
    clock.now += timedelta(days=8)
    await fund_prizes(service, 10_000)
    with pytest.raises(CouponNotUsable, match="expired"):
        await enter(money, "a", "cp-a")
    assert money.coupons is not None
    assert [c.expired(service.now()) for c in await money.coupons.of_player("a")] == [
        True,
        True,
        True,
    ]
    assert await posted(service, "player_cash:a:USD") == DEPOSIT
    assert (await service.find_transfers(tournament_id="T")) == []


async def rule_48_a_crash_refund_gives_coupons_back(money: GameMoney, clock: Clock) -> None:
    service = money.ledger
    await open_players(service, "a", "b")
    await fund_prizes(service, 10_000)
    await issue(money, "cp-a", "a")
    await enter(money, "a", "cp-a")
    await money.register(
        entry_id="T:b", tournament_id="T", game="poker", player="b", currency="USD",
        buy_in=BUY_IN, fee=FEE,
    )  # fmt: skip
    refund = await money.crash_refund_tournament(tournament_id="T", game="poker", currency="USD")
    assert len(refund.refunds) == 2  # b's entry and fee; a paid nothing
    assert await status(money, "a", "cp-a") is CouponStatus.HELD
    assert await posted(service, POOL) == 0
    assert await posted(service, FUND) == 10_000
    assert await posted(service, "player_cash:b:USD") == DEPOSIT


STORIES = [
    rule_48_a_coupon_pays_an_entry_and_comes_back_on_unregister,
    rule_48_a_coupon_that_cannot_pay_is_refused_and_stays_held,
    rule_48_a_crash_refund_gives_coupons_back,
]
