"""The `Wallet` port over the wallet's gRPC API (`croupier.wallet.v1.Wallet`).

A player's account in a currency is the wallet's to name (`account_id_for`): his cash
account, or his chips account for a chips currency. Which kind a currency is the wallet
knows (its currencies table), so the cash account is asked first and, when the wallet has
none, the chips one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from croupier.game.errors import Unknown
from croupier.kit.channels import Target
from croupier.kit.remote import Remote
from croupier.kit.service_auth import ServiceCredential
from croupier.wallet.core.model import AccountKind, account_id_for
from croupier.wallet.v1 import wallet_pb2, wallet_pb2_grpc

__all__ = ["GrpcWallet"]

T = TypeVar("T")


class GrpcWallet(Remote):
    def __init__(self, target: Target, credential: ServiceCredential | None = None) -> None:
        super().__init__("wallet", target, wallet_pb2_grpc.WalletStub, credential)

    async def _players_account(
        self, player: str, currency: str, read: Callable[[str], Awaitable[T]]
    ) -> T:
        try:
            return await read(account_id_for(AccountKind.PLAYER_CASH, player, currency))
        except Unknown:
            pass  # not a cash currency, or no account in it: his chips account, if any
        try:
            return await read(account_id_for(AccountKind.PLAYER_CHIPS, player, currency))
        except Unknown as error:
            raise Unknown(f"you have no account in {currency}", "account_not_found") from error

    async def balance(self, player: str, currency: str) -> wallet_pb2.GetBalanceResponse:
        async def read(account_id: str) -> wallet_pb2.GetBalanceResponse:
            request = wallet_pb2.GetBalanceRequest(account_id=account_id)
            response: wallet_pb2.GetBalanceResponse = await self.call("GetBalance", request)
            return response

        return await self._players_account(player, currency, read)

    async def statement(
        self, player: str, currency: str, page_size: int, page_token: str
    ) -> wallet_pb2.GetStatementResponse:
        async def read(account_id: str) -> wallet_pb2.GetStatementResponse:
            request = wallet_pb2.GetStatementRequest(account_id=account_id)
            request.page.page_size, request.page.page_token = page_size, page_token
            response: wallet_pb2.GetStatementResponse = await self.call("GetStatement", request)
            return response

        return await self._players_account(player, currency, read)

    async def coupons(self, player: str) -> wallet_pb2.ListCouponsResponse:
        request = wallet_pb2.ListCouponsRequest(player_id=player)
        response: wallet_pb2.ListCouponsResponse = await self.call("ListCoupons", request)
        return response
