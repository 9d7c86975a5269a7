"""Where coupons are kept (`service.coupons.CouponStore`): the `coupons` table (migration
0007) and an in-memory copy for unit tests. A change is a compare-and-set on the row's
status and entry, so two requests redeeming one coupon cannot both succeed."""

from __future__ import annotations

from typing import Any

import asyncpg  # type: ignore[import-untyped]

from croupier.wallet.core.coupons import Coupon, CouponStatus

__all__ = ["InMemoryCoupons", "PostgresCoupons"]

_COLUMNS = (
    "coupon_id, player, game, currency, value, issued_at, expires_at, status, entry_id, "
    "tournament_id, changed_at"
)


def _coupon(row: Any) -> Coupon:
    return Coupon(
        coupon_id=row["coupon_id"],
        player=row["player"],
        game=row["game"],
        currency=row["currency"],
        value=row["value"],
        issued_at=row["issued_at"],
        expires_at=row["expires_at"],
        status=CouponStatus(row["status"]),
        entry_id=row["entry_id"],
        tournament_id=row["tournament_id"],
        changed_at=row["changed_at"],
    )


class PostgresCoupons:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def add(self, coupon: Coupon) -> Coupon:
        async with self._pool.acquire() as db:
            row = await db.fetchrow(
                f"""WITH added AS (
                        INSERT INTO coupons ({_COLUMNS})
                        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                        ON CONFLICT (coupon_id) DO NOTHING RETURNING *)
                    SELECT * FROM added UNION ALL
                    SELECT * FROM coupons WHERE coupon_id = $1 LIMIT 1""",
                *_values(coupon),
            )
        return _coupon(row)

    async def get(self, coupon_id: str) -> Coupon | None:
        async with self._pool.acquire() as db:
            row = await db.fetchrow("SELECT * FROM coupons WHERE coupon_id = $1", coupon_id)
        return None if row is None else _coupon(row)

    async def of_player(self, player: str) -> list[Coupon]:
        async with self._pool.acquire() as db:
            rows = await db.fetch(
                "SELECT * FROM coupons WHERE player = $1 ORDER BY coupon_id", player
            )
        return [_coupon(row) for row in rows]

    async def redeemed_for(self, *, entry_id: str = "", tournament_id: str = "") -> list[Coupon]:
        async with self._pool.acquire() as db:
            rows = await db.fetch(
                """SELECT * FROM coupons WHERE status = 'redeemed'
                   AND ((entry_id = $1 AND $1 <> '') OR (tournament_id = $2 AND $2 <> ''))
                   ORDER BY coupon_id""",
                entry_id,
                tournament_id,
            )
        return [_coupon(row) for row in rows]

    async def swap(self, before: Coupon, after: Coupon) -> bool:
        async with self._pool.acquire() as db:
            done = await db.execute(
                """UPDATE coupons SET status = $3, entry_id = $4, tournament_id = $5,
                                      changed_at = $6
                   WHERE coupon_id = $1 AND status = $2 AND entry_id = $7""",
                after.coupon_id,
                before.status.value,
                after.status.value,
                after.entry_id,
                after.tournament_id,
                after.changed_at,
                before.entry_id,
            )
        return bool(done == "UPDATE 1")


def _values(coupon: Coupon) -> tuple[Any, ...]:
    return (
        coupon.coupon_id,
        coupon.player,
        coupon.game,
        coupon.currency,
        coupon.value,
        coupon.issued_at,
        coupon.expires_at,
        coupon.status.value,
        coupon.entry_id,
        coupon.tournament_id,
        coupon.changed_at,
    )


class InMemoryCoupons:
    def __init__(self) -> None:
        self.coupons: dict[str, Coupon] = {}

    async def add(self, coupon: Coupon) -> Coupon:
        return self.coupons.setdefault(coupon.coupon_id, coupon)

    async def get(self, coupon_id: str) -> Coupon | None:
        return self.coupons.get(coupon_id)

    async def of_player(self, player: str) -> list[Coupon]:
        return sorted(
            (c for c in self.coupons.values() if c.player == player), key=lambda c: c.coupon_id
        )

    async def redeemed_for(self, *, entry_id: str = "", tournament_id: str = "") -> list[Coupon]:
        return sorted(
            (
                c
                for c in self.coupons.values()
                if c.status is CouponStatus.REDEEMED
                and (
                    (entry_id and c.entry_id == entry_id)
                    or (tournament_id and c.tournament_id == tournament_id)
                )
            ),
            key=lambda c: c.coupon_id,
        )

    async def swap(self, before: Coupon, after: Coupon) -> bool:
        stored = self.coupons.get(before.coupon_id)
        if stored is None or (stored.status, stored.entry_id) != (before.status, before.entry_id):
            return False
        self.coupons[after.coupon_id] = after
        return True
