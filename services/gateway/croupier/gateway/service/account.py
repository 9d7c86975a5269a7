"""The account's RPCs (`GatewayService`'s first part): the caller's money, coupons and
responsible-gaming limits, and the operator's call that sets an account's limits."""

from __future__ import annotations

from croupier.gateway.core.access import require_operator
from croupier.gateway.core.requests import (
    check_currency,
    check_id,
    check_page,
    check_stake_limits,
)
from croupier.gateway.service.ports import Lobby, Wallet
from croupier.gateway.v1 import gateway_pb2 as pb
from croupier.kit.auth import Identity
from croupier.lobby.v1 import lobby_pb2

__all__ = ["AccountMethods"]


class AccountMethods:
    """Account calls over the wallet and the lobby (which keeps the limits)."""

    _wallet: Wallet
    _lobby: Lobby

    async def GetBalance(
        self, request: pb.GetBalanceRequest, caller: Identity
    ) -> pb.GetBalanceResponse:
        currency = check_currency(request.currency)
        answer = await self._wallet.balance(caller.player, currency)
        return pb.GetBalanceResponse(
            balance=answer.balance, available=answer.available, held=answer.held
        )

    async def GetStatement(
        self, request: pb.GetStatementRequest, caller: Identity
    ) -> pb.GetStatementResponse:
        currency = check_currency(request.currency)
        page_size, page_token = check_page(request.page.page_size, request.page.page_token)
        answer = await self._wallet.statement(caller.player, currency, page_size, page_token)
        return pb.GetStatementResponse(lines=answer.lines, next_page_token=answer.next_page_token)

    async def ListCoupons(
        self, request: pb.ListCouponsRequest, caller: Identity
    ) -> pb.ListCouponsResponse:
        answer = await self._wallet.coupons(caller.player)
        return pb.ListCouponsResponse(coupons=answer.coupons)

    async def GetAccountLimits(
        self, request: pb.GetAccountLimitsRequest, caller: Identity
    ) -> pb.GetAccountLimitsResponse:
        answer = await self._lobby.limits(caller.player)
        return pb.GetAccountLimitsResponse(
            max_stakes=answer.max_stakes, self_excluded=answer.self_excluded
        )

    async def SetAccountLimits(
        self, request: pb.SetAccountLimitsRequest, caller: Identity
    ) -> pb.SetAccountLimitsResponse:
        # The role first: a player learns nothing about the request's shape or the account.
        require_operator(caller.operator, "SetAccountLimits")
        check_stake_limits([(limit.currency, limit.amount_minor) for limit in request.max_stakes])
        forwarded = lobby_pb2.SetAccountLimitsRequest(
            player_id=check_id(request.player_id, "player_id"),
            max_stakes=request.max_stakes,
            self_excluded=request.self_excluded,
        )
        await self._lobby.set_limits(forwarded)
        return pb.SetAccountLimitsResponse()
