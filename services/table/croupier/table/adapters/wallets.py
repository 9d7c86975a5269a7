"""Adapters of the `Wallet` port (`croupier.table.ports`): `GrpcWallet` (the wallet
service) and `InMemoryWallet` (a tiny ledger for unit tests and the embedded mode without
PostgreSQL). Without a wallet configured, the host moves no money (`Buyins`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from croupier.common.v1 import common_pb2
from croupier.game import Duplicate, RuleBroken
from croupier.table.adapters.sink import GAMES
from croupier.table.ports import BuyIn
from croupier.wallet.client import WalletClient, WalletUnavailable

__all__ = ["GrpcWallet", "InMemoryWallet", "WalletUnavailable"]


class GrpcWallet(WalletClient):
    """The wallet service over gRPC (`croupier.wallet.v1.Wallet/BuyIn`)."""

    async def buy_in(self, buy_in: BuyIn) -> None:
        from croupier.wallet.v1 import wallet_pb2

        request = wallet_pb2.BuyInRequest(
            transfer_id=buy_in.transfer_id,
            player_id=buy_in.player,
            game=GAMES.get(buy_in.game, common_pb2.GAME_UNSPECIFIED),
            table_id=buy_in.table_id,
            amount=common_pb2.Money(amount_minor=buy_in.amount, currency=buy_in.currency),
        )
        await self.call("BuyIn", request, "buy-in", retry="retry with the same command")


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
            if earlier != buy_in:  # as the wallet answers a reused idempotency key
                raise Duplicate(
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
