"""The `Wallet` port over the wallet service's gRPC tournament RPCs."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from croupier.tournament.codec import GAME_ENUMS, money
from croupier.wallet.client import WalletClient, WalletUnavailable

__all__ = ["GrpcWallet", "WalletUnavailable"]


class GrpcWallet(WalletClient):
    """The wallet service's tournament RPCs (entries and rebuys, refunds, prizes, crash
    refunds) and the house's prize fund's balance."""

    async def enter(
        self,
        *,
        entry_id: str,
        tournament_id: str,
        game: str,
        player: str,
        currency: str,
        buy_in: int,
        fee: int,
        rebuy: bool = False,
        prize_pool: int | None = None,
        coupon_id: str = "",
    ) -> None:
        from croupier.wallet.v1 import wallet_pb2

        request = wallet_pb2.EnterTournamentRequest(
            entry_id=entry_id,
            tournament_id=tournament_id,
            game=GAME_ENUMS[game],
            player_id=player,
            buy_in=money(buy_in, currency),
            fee=money(fee, currency),
            rebuy=rebuy,
            prize_pool=None if prize_pool is None else money(prize_pool, currency),
            coupon_id=coupon_id,
        )
        await self.call("EnterTournament", request, "rebuy" if rebuy else "entry")

    async def issue_coupon(
        self,
        *,
        coupon_id: str,
        player: str,
        game: str,
        currency: str,
        value: int,
        expires_at: datetime,
    ) -> None:
        from croupier.wallet.v1 import wallet_pb2

        request = wallet_pb2.IssueCouponRequest(
            coupon_id=coupon_id,
            player_id=player,
            game=GAME_ENUMS[game],
            value=money(value, currency),
        )
        request.expires_at.FromDatetime(expires_at)
        await self.call("IssueCoupon", request, "coupon prize")

    async def prize_fund(self, *, game: str, currency: str) -> int:
        from croupier.wallet.v1 import wallet_pb2

        # Opening returns the account as it is (an empty one if the operator never funded
        # it): no NOT_FOUND to tell apart from the wallet's other refusals.
        request = wallet_pb2.OpenAccountRequest(
            kind=wallet_pb2.ACCOUNT_KIND_HOUSE_PROMOTIONS, owner=game, currency=currency
        )
        response = await self.call("OpenAccount", request, "prize fund's balance")
        available: int = response.account.available_minor
        return available

    async def refund_entry(self, *, entry_id: str, refund_id: str) -> None:
        from croupier.wallet.v1 import wallet_pb2

        request = wallet_pb2.RefundTournamentEntryRequest(entry_id=entry_id, refund_id=refund_id)
        await self.call("RefundTournamentEntry", request, "refund")

    async def refund_crashed(self, *, tournament_id: str, game: str, currency: str) -> int:
        from croupier.wallet.v1 import wallet_pb2

        request = wallet_pb2.RefundCrashedTournamentRequest(
            tournament_id=tournament_id, game=GAME_ENUMS[game], currency=currency
        )
        response = await self.call("RefundCrashedTournament", request, "crash refund")
        return len(response.refunds)

    async def pay_prizes(
        self,
        *,
        payout_id: str,
        tournament_id: str,
        game: str,
        currency: str,
        prizes: Mapping[str, int],
    ) -> None:
        from croupier.wallet.v1 import wallet_pb2

        request = wallet_pb2.PayTournamentPrizesRequest(
            payout_id=payout_id,
            tournament_id=tournament_id,
            game=GAME_ENUMS[game],
            currency=currency,
            prizes=[
                wallet_pb2.Prize(player_id=player, amount_minor=amount)
                for player, amount in prizes.items()
            ],
            final=True,
        )
        await self.call("PayTournamentPrizes", request, "prizes")
