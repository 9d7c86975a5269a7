"""Coupons (seed 000 rule 48, OQ 29) as the wallet serves them: issued by an operator,
listed for their player ("My coupons"), redeemed for a tournament entry and given back
when that entry is refunded (`TournamentMoney`). The rules are `core.coupons`'."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from croupier.wallet.core.coupons import (
    Coupon,
    CouponNotUsable,
    check_redeemable,
    given_back,
    redeemed,
)
from croupier.wallet.core.errors import IdempotencyConflict, InvalidRequest
from croupier.wallet.core.model import check_amount, check_id
from croupier.wallet.service.ledger import LedgerService

__all__ = ["CouponStore", "Coupons"]


class CouponStore(Protocol):
    async def add(self, coupon: Coupon) -> Coupon:
        """Insert unless the id exists; the stored coupon either way."""
        ...

    async def get(self, coupon_id: str) -> Coupon | None: ...

    async def of_player(self, player: str) -> list[Coupon]: ...

    async def redeemed_for(self, *, entry_id: str = "", tournament_id: str = "") -> list[Coupon]:
        """The coupons now paying the entry `entry_id`, or any entry of `tournament_id`."""
        ...

    async def swap(self, before: Coupon, after: Coupon) -> bool:
        """Store `after` if the coupon's status and entry are still `before`'s."""
        ...


class Coupons:
    def __init__(self, store: CouponStore, ledger: LedgerService) -> None:
        self._store = store
        self._ledger = ledger

    async def issue(
        self,
        *,
        coupon_id: str,
        player: str,
        game: str,
        currency: str,
        value: int,
        expires_at: datetime,
    ) -> tuple[Coupon, bool]:
        """An operator gives `player` a coupon worth an entry price of `value`; the coupon
        and whether this request had issued it already (same terms: nothing new)."""
        now = self._ledger.now()
        if expires_at <= now:
            raise InvalidRequest("expires_at must be in the future")
        coupon = Coupon(
            coupon_id=check_id(coupon_id, "coupon_id"),
            player=check_id(player, "player_id"),
            game=game,
            currency=(await self._ledger.currency(currency)).code,
            value=check_amount(value, "value"),
            issued_at=now,
            expires_at=expires_at,
            changed_at=now,
        )
        stored = await self._store.add(coupon)
        if not stored.same_issue_as(coupon):
            raise IdempotencyConflict(
                f"coupon id {coupon_id!r} was issued with other terms; choose a new id"
            )
        return stored, stored != coupon

    async def of_player(self, player: str) -> list[Coupon]:
        return await self._store.of_player(check_id(player, "player_id"))

    async def redeem(
        self,
        coupon_id: str,
        *,
        player: str,
        game: str,
        currency: str,
        price: int,
        entry_id: str,
        tournament_id: str,
    ) -> Coupon | None:
        """Take the coupon for the entry; the coupon as it was (to give it back if the
        entry fails), None if it paid this very entry already (a request sent again)."""
        coupon = await self._store.get(check_id(coupon_id, "coupon_id"))
        fresh = check_redeemable(
            coupon,
            player=player,
            game=game,
            currency=currency,
            price=price,
            entry_id=entry_id,
            now=self._ledger.now(),
        )
        if not fresh:
            return None
        assert coupon is not None
        taken = redeemed(coupon, entry_id, tournament_id, self._ledger.now())
        if not await self._store.swap(coupon, taken):
            raise CouponNotUsable(f"coupon {coupon_id!r} was just used for another entry")
        return taken

    async def give_back(self, *, entry_id: str = "", tournament_id: str = "") -> None:
        """The coupons paying an entry refunded (or every entry of a tournament refunded)
        are held again."""
        now = self._ledger.now()
        for coupon in await self._store.redeemed_for(
            entry_id=entry_id, tournament_id=tournament_id
        ):
            await self._store.swap(coupon, given_back(coupon, now))
