"""The operator's side of the run: deposits into the players' cash accounts before they
play, and the poker prize fund that Spins draw on (a cashier, not a player, so over the
wallet's gRPC with a service credential, each transfer with its own idempotency key)."""

from __future__ import annotations

from collections.abc import Sequence

from croupier.common.v1 import common_pb2
from croupier.kit.auth import KeySet
from croupier.kit.channels import ServiceChannel
from croupier.kit.service_auth import ServiceCredential
from croupier.wallet.v1 import wallet_pb2 as wpb
from croupier.wallet.v1 import wallet_pb2_grpc


async def _pay_from_the_house(
    wallet_address: str,
    keys: KeySet,
    payments: Sequence[tuple[wpb.AccountKind.ValueType, str, int, wpb.TransferKind.ValueType]],
    currency: str,
) -> None:
    """Each (account kind, owner, amount, transfer kind): the account opened and credited
    from the house clearing account."""
    channel = ServiceChannel(wallet_address, ServiceCredential(keys, "e2e-cashier"))
    try:
        stub = channel.stub(wallet_pb2_grpc.WalletStub)
        house = await stub.OpenAccount(
            wpb.OpenAccountRequest(
                kind=wpb.ACCOUNT_KIND_HOUSE_CLEARING, owner="house", currency=currency
            )
        )
        for kind, owner, amount, transfer_kind in payments:
            account = await stub.OpenAccount(
                wpb.OpenAccountRequest(kind=kind, owner=owner, currency=currency)
            )
            await stub.Transfer(
                wpb.TransferRequest(
                    transfer=wpb.NewTransfer(
                        transfer_id=f"e2e-{wpb.AccountKind.Name(kind).lower()}-{owner}-{currency}",
                        debit_account_id=house.account.account_id,
                        credit_account_id=account.account.account_id,
                        amount=common_pb2.Money(amount_minor=amount, currency=currency),
                        kind=transfer_kind,
                    )
                )
            )
    finally:
        await channel.close()


async def deposit(
    wallet_address: str, keys: KeySet, deposits: dict[str, int], currency: str
) -> None:
    """Credit each player's cash account in `currency` from the house clearing account."""
    payments = [
        (wpb.ACCOUNT_KIND_PLAYER_CASH, player, amount, wpb.TRANSFER_KIND_DEPOSIT)
        for player, amount in deposits.items()
    ]
    await _pay_from_the_house(wallet_address, keys, payments, currency)


async def fund_prizes(wallet_address: str, keys: KeySet, amount: int, currency: str) -> None:
    """Move `amount` from the house clearing account into the poker prize fund
    (`house_promotions:poker`), which tops up the pools of Spins drawn high."""
    payment = (wpb.ACCOUNT_KIND_HOUSE_PROMOTIONS, "poker", amount, wpb.TRANSFER_KIND_TRANSFER)
    await _pay_from_the_house(wallet_address, keys, [payment], currency)
