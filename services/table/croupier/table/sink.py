"""What the host publishes: public table events and requests to the wallet.

Table events never carry hidden cards: engine events are public by contract, and a hand's
result holds only what its showdown revealed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Protocol

from croupier.common.v1 import common_pb2
from croupier.events.v1.envelope_pb2 import Envelope
from croupier.game import Event
from croupier.table.table_state import Settlement
from croupier.table.v1 import table_pb2

EVENTS_TOPIC = "croupier.table.events"
WALLET_REQUESTS_TOPIC = "croupier.wallet.requests"

GAMES = {
    "poker": common_pb2.GAME_POKER,
    "backgammon": common_pb2.GAME_BACKGAMMON,
    "rummy": common_pb2.GAME_RUMMY,
    "joker": common_pb2.GAME_JOKER,
}


class Publisher(Protocol):
    """The host's one outgoing port; `croupier.kit.bus.EventBus` satisfies it."""

    async def publish_many(self, messages: Sequence[tuple[str, Envelope]]) -> None: ...


def event_message(table_id: str, game: str, event: Event) -> table_pb2.ActionTaken:
    """A public engine/host event as it travels on `croupier.table.events`."""
    return table_pb2.ActionTaken(
        table_id=table_id,
        hand_number=int(event.data.get("hand_number", 0)),
        public_json=json.dumps({"type": event.type, **event.data}, sort_keys=True, default=str),
    )


def settlement_message(
    table_id: str, game: str, currency: str, settlement: Settlement
) -> table_pb2.SettlementRequested:
    result = settlement.result
    return table_pb2.SettlementRequested(
        idempotency_key=f"{table_id}:{settlement.hand_number}",
        table_id=table_id,
        hand_number=settlement.hand_number,
        game=GAMES.get(game, common_pb2.GAME_UNSPECIFIED),
        currency=currency,
        deltas=dict(result.deltas),
        commission=dict(result.commission),
        details_json=json.dumps(result.details, sort_keys=True, default=str),
    )


def crash_refund_message(table_id: str, game: str, reason: str) -> table_pb2.CrashRefundRequested:
    return table_pb2.CrashRefundRequested(
        idempotency_key=f"{table_id}:crash",
        table_id=table_id,
        game=GAMES.get(game, common_pb2.GAME_UNSPECIFIED),
        reason=reason,
    )
