"""The operator's side of the run: deposits into the players' cash accounts before they
play (a cashier, not a player, so over the wallet's gRPC with a service credential, each
deposit with its own idempotency key)."""

from __future__ import annotations

from croupier.common.v1 import common_pb2
from croupier.kit.auth import KeySet
from croupier.kit.channels import ServiceChannel
from croupier.kit.service_auth import ServiceCredential
from croupier.wallet.v1 import wallet_pb2 as wpb
from croupier.wallet.v1 import wallet_pb2_grpc


async def deposit(
    wallet_address: str, keys: KeySet, deposits: dict[str, int], currency: str
) -> None:
    """Credit each player's cash account in `currency` from the house clearing account."""
    channel = ServiceChannel(wallet_address, ServiceCredential(keys, "e2e-cashier"))
    try:
        stub = channel.stub(wallet_pb2_grpc.WalletStub)
        house = await stub.OpenAccount(
            wpb.OpenAccountRequest(
                kind=wpb.ACCOUNT_KIND_HOUSE_CLEARING, owner="house", currency=currency
            )
        )
        for player, amount in deposits.items():
            account = await stub.OpenAccount(
                wpb.OpenAccountRequest(
                    kind=wpb.ACCOUNT_KIND_PLAYER_CASH, owner=player, currency=currency
                )
            )
            await stub.Transfer(
                wpb.TransferRequest(
                    transfer=wpb.NewTransfer(
                        transfer_id=f"e2e-deposit-{player}-{currency}",
                        debit_account_id=house.account.account_id,
                        credit_account_id=account.account.account_id,
                        amount=common_pb2.Money(amount_minor=amount, currency=currency),
                        kind=wpb.TRANSFER_KIND_DEPOSIT,
                    )
                )
            )
    finally:
        await channel.close()
