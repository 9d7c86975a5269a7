"""Coupons (seed 000 rule 48, OQ 29): tournament tickets, an asset of the wallet, not money.

An operator issues a coupon to a player for a game and currency, worth an entry price (the
buy-in + fee it pays at most) until it expires. The player holds it; registering with it
redeems it for one entry, whose buy-in the house's prize fund then pays into the pool (the
entry's fee is waived); unregistering before the start, or the tournament's crash refund,
gives it back (held again, its expiry unchanged); an operator may void a held coupon.
"My coupons" lists the held ones and those expired (and, for the record, those redeemed or
voided). These are the rules; the stores keep the rows (`adapters/coupons_*`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from croupier.game import Unknown
from croupier.wallet.core.errors import LedgerError

__all__ = [
    "Coupon",
    "CouponNotFound",
    "CouponNotUsable",
    "CouponStatus",
    "check_redeemable",
    "given_back",
    "redeemed",
]


class CouponNotFound(LedgerError, Unknown):
    """No such coupon among the player's (another player's is not told apart)."""

    reason = "coupon_not_found"


class CouponNotUsable(LedgerError):
    """The coupon exists but cannot pay this entry: used, voided, expired, another game,
    currency, or worth less than the entry price."""

    reason = "coupon_not_usable"


class CouponStatus(StrEnum):
    HELD = "held"
    REDEEMED = "redeemed"
    VOIDED = "voided"


@dataclass(frozen=True, slots=True, kw_only=True)
class Coupon:
    coupon_id: str
    player: str
    game: str
    currency: str
    value: int
    """The entry price (buy-in + fee, minor units) it pays at most."""
    issued_at: datetime
    expires_at: datetime
    status: CouponStatus = CouponStatus.HELD
    entry_id: str = ""
    """While redeemed: the entry it paid."""
    tournament_id: str = ""
    changed_at: datetime

    def expired(self, now: datetime) -> bool:
        return self.status is CouponStatus.HELD and now >= self.expires_at

    def same_issue_as(self, other: Coupon) -> bool:
        """Whether `other` is the same issue (an operator's request sent again)."""
        fields = ("coupon_id", "player", "game", "currency", "value", "expires_at")
        return all(getattr(self, name) == getattr(other, name) for name in fields)


def check_redeemable(
    coupon: Coupon | None,
    *,
    player: str,
    game: str,
    currency: str,
    price: int,
    entry_id: str,
    now: datetime,
) -> bool:
    """Whether `coupon` may pay `player`'s entry `entry_id` (price = buy-in + fee): True to
    redeem it, False if it already paid this very entry (a request sent again); refused
    otherwise, with a message for the player's frontend."""
    if coupon is None or coupon.player != player:
        raise CouponNotFound("no such coupon among yours: see My coupons for those you hold")
    if coupon.status is CouponStatus.REDEEMED and coupon.entry_id == entry_id:
        return False
    if coupon.status is not CouponStatus.HELD:
        raise CouponNotUsable(f"coupon {coupon.coupon_id!r} was {coupon.status.value} already")
    if coupon.expired(now):
        raise CouponNotUsable(
            f"coupon {coupon.coupon_id!r} expired on {coupon.expires_at.isoformat()}"
        )
    if (coupon.game, coupon.currency) != (game, currency):
        raise CouponNotUsable(
            f"coupon {coupon.coupon_id!r} pays {coupon.game} tournaments in {coupon.currency}, "
            f"not {game} in {currency}"
        )
    if coupon.value < price:
        raise CouponNotUsable(
            f"coupon {coupon.coupon_id!r} is worth {coupon.value} {currency} minor units, "
            f"less than the entry price {price}"
        )
    return True


def redeemed(coupon: Coupon, entry_id: str, tournament_id: str, now: datetime) -> Coupon:
    return dataclasses.replace(
        coupon,
        status=CouponStatus.REDEEMED,
        entry_id=entry_id,
        tournament_id=tournament_id,
        changed_at=now,
    )


def given_back(coupon: Coupon, now: datetime) -> Coupon:
    """Held again (its entry refunded): usable until it expires, as before."""
    return dataclasses.replace(
        coupon, status=CouponStatus.HELD, entry_id="", tournament_id="", changed_at=now
    )
