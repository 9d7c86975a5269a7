"""Adapters of the `Wallet` port (`croupier.table.ports`): `GrpcWallet` (the wallet
service) and `InMemoryWallet` (a tiny ledger for unit tests and the embedded mode without
PostgreSQL). Without a wallet configured, the host moves no money (`Buyins`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc

from croupier.common.v1 import common_pb2
from croupier.game import Malformed, RuleBroken
from croupier.kit.errors import Unavailable
from croupier.table.adapters.sink import GAMES
from croupier.table.ports import BuyIn

WALLET_TIMEOUT_SECONDS = 5.0


class WalletUnavailable(Unavailable):
    """The wallet did not answer a buy-in: nothing was logged; retry the same command."""


# The wallet's refusals, as the table's caller should see them (any other status: the
# wallet did not answer, and the same command may be retried).
_REFUSALS: dict[grpc.StatusCode, type[RuleBroken]] = {
    grpc.StatusCode.FAILED_PRECONDITION: RuleBroken,
    grpc.StatusCode.NOT_FOUND: RuleBroken,  # no account in that currency
    grpc.StatusCode.ALREADY_EXISTS: RuleBroken,  # id reused for another amount
    grpc.StatusCode.INVALID_ARGUMENT: Malformed,
}


class GrpcWallet:
    """The wallet service over gRPC (`croupier.wallet.v1.Wallet/BuyIn`)."""

    def __init__(
        self, target: str | Callable[[], str], timeout: float = WALLET_TIMEOUT_SECONDS
    ) -> None:
        """`target`: the wallet's address, or how to find it once known (the embedded
        platform serves the wallet on its own port, bound after the host is built)."""
        self._target = target
        self._timeout = timeout
        self._channel: grpc.aio.Channel | None = None
        self._stub: Any = None

    def _wallet(self) -> Any:
        if self._stub is None:
            from croupier.wallet.v1 import wallet_pb2_grpc

            target = self._target if isinstance(self._target, str) else self._target()
            self._channel = grpc.aio.insecure_channel(target)
            self._stub = wallet_pb2_grpc.WalletStub(self._channel)
        return self._stub

    async def buy_in(self, buy_in: BuyIn) -> None:
        from croupier.wallet.v1 import wallet_pb2

        request = wallet_pb2.BuyInRequest(
            transfer_id=buy_in.transfer_id,
            player_id=buy_in.player,
            game=GAMES.get(buy_in.game, common_pb2.GAME_UNSPECIFIED),
            table_id=buy_in.table_id,
            amount=common_pb2.Money(amount_minor=buy_in.amount, currency=buy_in.currency),
        )
        try:
            await self._wallet().BuyIn(request, timeout=self._timeout)
        except grpc.aio.AioRpcError as error:
            refusal = _REFUSALS.get(error.code())
            if refusal is None:
                raise WalletUnavailable(
                    f"the wallet did not confirm the buy-in ({error.code().name}); "
                    "retry with the same command"
                ) from error
            raise refusal(f"the wallet refused the buy-in: {error.details()}") from error

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close()
            self._channel, self._stub = None, None


@dataclass
class InMemoryWallet:
    """A minimal ledger: players' balances and seat accounts per currency, for unit tests
    (and a host that has no wallet service but must still count what it seats)."""

    balances: dict[tuple[str, str], int] = field(default_factory=dict)  # (player, ccy)
    seats: dict[tuple[str, str, str], int] = field(default_factory=dict)  # (table, player, ccy)
    transfers: dict[str, BuyIn] = field(default_factory=dict)

    def deposit(self, player: str, currency: str, amount: int) -> None:
        key = (player, currency)
        self.balances[key] = self.balances.get(key, 0) + amount

    async def buy_in(self, buy_in: BuyIn) -> None:
        earlier = self.transfers.get(buy_in.transfer_id)
        if earlier is not None:
            if earlier != buy_in:
                raise RuleBroken(
                    f"the wallet refused the buy-in: transfer {buy_in.transfer_id!r} "
                    "was used for another buy-in",
                )
            return
        key = (buy_in.player, buy_in.currency)
        available = self.balances.get(key, 0)
        if available < buy_in.amount:
            raise RuleBroken(
                f"the wallet refused the buy-in: {buy_in.player!r} has {available} "
                f"{buy_in.currency} available, {buy_in.amount} needed",
            )
        self.balances[key] = available - buy_in.amount
        seat = (buy_in.table_id, buy_in.player, buy_in.currency)
        self.seats[seat] = self.seats.get(seat, 0) + buy_in.amount
        self.transfers[buy_in.transfer_id] = buy_in

    def cash_out(self, table_id: str, player: str, currency: str, amount: int) -> None:
        """What a cash-out request does (tests apply the host's requests with it)."""
        seat = (table_id, player, currency)
        if self.seats.get(seat, 0) < amount:
            raise ValueError(f"seat {seat} holds {self.seats.get(seat, 0)}, {amount} asked")
        self.seats[seat] -= amount
        self.deposit(player, currency, amount)

    def settle(self, table_id: str, currency: str, deltas: dict[str, int]) -> None:
        for player, delta in deltas.items():
            seat = (table_id, player, currency)
            self.seats[seat] = self.seats.get(seat, 0) + delta
