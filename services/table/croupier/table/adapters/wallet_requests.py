"""The `WalletRequests` port on the event bus: the host's money requests
(`croupier.table.service.requests`) as the wallet consumes them on
`croupier.wallet.requests`, keyed by the table.

Each envelope's id and sequence come from the request's place in the table's log, so a
request sent again (a retry, a rebuilt host) carries the same id and the wallet drops the
copy; its payload carries the request's idempotency key (or transfer id), by which the
wallet applies it once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import assert_never

from croupier.common.v1 import common_pb2
from croupier.events.v1.envelope_pb2 import Envelope
from croupier.table.adapters.sink import GAMES, WALLET_REQUESTS_TOPIC, envelope
from croupier.table.ports import Publisher
from croupier.table.service.requests import CashOut, MoneyRequest, RefundCrashedTable, SettleHand
from croupier.table.v1 import table_pb2
from croupier.wallet.v1 import wallet_pb2


class WalletRequestsOnBus:
    """Publishes the requests in order, in one batch (`Publisher.publish_many`)."""

    def __init__(self, publisher: Publisher) -> None:
        self._publisher = publisher

    async def send(self, requests: Sequence[MoneyRequest]) -> None:
        await self._publisher.publish_many([wallet_message(request) for request in requests])


def wallet_message(request: MoneyRequest) -> tuple[str, Envelope]:
    """The topic and envelope that carry `request` to the wallet."""
    match request:
        case SettleHand():
            message = envelope(
                request.table_id,
                "wallet.settlement_requested",
                settlement_message(request),
                sequence=request.hand_number,
                discriminator=f"settlement/{request.hand_number}",
            )
        case CashOut():
            message = envelope(
                request.table_id,
                "wallet.cash_out_requested",
                cash_out_message(request),
                sequence=request.log_index,
                discriminator=f"cash_out/{request.log_index}/{request.player}",
            )
        case RefundCrashedTable():
            message = envelope(
                request.table_id,
                "wallet.crash_refund_requested",
                crash_refund_message(request),
                sequence=1,
                discriminator="crash",
            )
        case _:
            assert_never(request)
    return WALLET_REQUESTS_TOPIC, message


def settlement_message(request: SettleHand) -> table_pb2.SettlementRequested:
    return table_pb2.SettlementRequested(
        idempotency_key=request.idempotency_key,
        table_id=request.table_id,
        hand_number=request.hand_number,
        game=GAMES.get(request.game, common_pb2.GAME_UNSPECIFIED),
        currency=request.currency,
        deltas=dict(request.deltas),
        commission=dict(request.commission),
        details_json=json.dumps(request.details, sort_keys=True, default=str),
    )


def cash_out_message(request: CashOut) -> wallet_pb2.WalletRequest:
    """Cash the player out of the table for what it gives back; the wallet names the seat's
    account and the player's."""
    return wallet_pb2.WalletRequest(
        cash_out=wallet_pb2.CashOutRequest(
            transfer_id=request.transfer_id,
            player_id=request.player,
            game=GAMES.get(request.game, common_pb2.GAME_UNSPECIFIED),
            table_id=request.table_id,
            amount=common_pb2.Money(amount_minor=request.amount, currency=request.currency),
        )
    )


def crash_refund_message(request: RefundCrashedTable) -> table_pb2.CrashRefundRequested:
    return table_pb2.CrashRefundRequested(
        idempotency_key=request.idempotency_key,
        table_id=request.table_id,
        game=GAMES.get(request.game, common_pb2.GAME_UNSPECIFIED),
        reason=request.reason,
    )
