"""Coupon prizes issued at a tournament's end (rule 48, OQ 29; `core.coupon_prizes`), for
rummy and poker alike, beside the money prizes' one batch.

Each coupon's id is the tournament's and the place's, so a director that restarts between
the payout and the record of the end issues the same coupons again, which the wallet
answers as replays. The expiry counts from the first issue's clock; a retry on a later
clock asks with other terms and the wallet refuses it as a duplicate: that coupon exists
already, which is all the retry wanted.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from datetime import datetime, timedelta

from croupier.game import Duplicate
from croupier.tournament.core.coupon_prizes import coupon_winners
from croupier.tournament.core.ranking import Place
from croupier.tournament.service.model import TournamentRecord
from croupier.tournament.service.ports import Wallet

__all__ = ["award_coupons"]


async def award_coupons(
    wallet: Wallet, record: TournamentRecord, places: Sequence[Place], now: datetime
) -> int:
    """Issue the coupons the final `places` win; how many."""
    settings = record.settings
    won = coupon_winners(places, settings.coupon_prizes)
    for player, prize in won:
        with suppress(Duplicate):  # issued by an earlier attempt (module docstring)
            await wallet.issue_coupon(
                coupon_id=f"{record.tournament_id}:place-{prize.place}",
                player=player,
                game=settings.game,
                currency=settings.currency,
                value=prize.value,
                expires_at=now + timedelta(days=prize.valid_days),
            )
    return len(won)
