"""What the host publishes: public table events and requests to the wallet.

Table events never carry hidden cards: engine events are public by contract, and a hand's
result holds only what its showdown revealed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from croupier.common.v1 import common_pb2
from croupier.events.v1.envelope_pb2 import Envelope
from croupier.game import Event
from croupier.kit.bus.envelope import make_envelope
from croupier.table.core.log_entry import url_uuid5
from croupier.table.core.table_state import Settlement
from croupier.table.v1 import table_pb2

EVENTS_TOPIC = "croupier.table.events"
WALLET_REQUESTS_TOPIC = "croupier.wallet.requests"

GAMES = {
    "poker": common_pb2.GAME_POKER,
    "backgammon": common_pb2.GAME_BACKGAMMON,
    "rummy": common_pb2.GAME_RUMMY,
    "joker": common_pb2.GAME_JOKER,
}


def envelope(
    table_id: str, event_type: str, payload: Any, *, sequence: int, discriminator: str
) -> Envelope:
    """An envelope whose id is derived from its place in the table's log, so a message
    published again after a rebuild carries the same id and consumers drop the copy."""
    return make_envelope(
        type=event_type,
        source="table",
        subject=table_id,
        sequence=max(1, sequence),
        payload=payload,
        envelope_id=url_uuid5(f"{table_id}/{discriminator}"),
    )


def public_events(
    table_id: str, game: str, index: int, events: Sequence[Event]
) -> list[tuple[str, Envelope]]:
    """A committed entry's public events, with ids derived from the entry's place in the log."""
    return [
        (
            EVENTS_TOPIC,
            envelope(
                table_id,
                f"table.{event.type}",
                event_message(table_id, game, event),
                sequence=index,
                discriminator=f"{index}/{position}",
            ),
        )
        for position, event in enumerate(events)
    ]


def settlement_request(
    table_id: str, game: str, currency: str, settlement: Settlement
) -> tuple[str, Envelope]:
    return (
        WALLET_REQUESTS_TOPIC,
        envelope(
            table_id,
            "wallet.settlement_requested",
            settlement_message(table_id, game, currency, settlement),
            sequence=settlement.hand_number,
            discriminator=f"settlement/{settlement.hand_number}",
        ),
    )


def crash_refund_request(table_id: str, game: str, reason: str) -> tuple[str, Envelope]:
    return (
        WALLET_REQUESTS_TOPIC,
        envelope(
            table_id,
            "wallet.crash_refund_requested",
            crash_refund_message(table_id, game, reason),
            sequence=1,
            discriminator="crash",
        ),
    )


def cash_out_message(
    table_id: str,
    game: str,
    currency: str,
    player: str,
    amount: int,
    index: int,
    *,
    transfer_id: str,
) -> tuple[str, Envelope]:
    """The request to give `player` back `amount` when log entry `index` let him go."""
    return (
        WALLET_REQUESTS_TOPIC,
        envelope(
            table_id,
            "wallet.cash_out_requested",
            cash_out_request(table_id, game, currency, player, amount, transfer_id),
            sequence=index,
            discriminator=f"cash_out/{index}/{player}",
        ),
    )


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


def cash_out_request(
    table_id: str, game: str, currency: str, player: str, amount: int, transfer_id: str
) -> Any:
    """A `croupier.wallet.v1.WalletRequest`: cash `player` out of `table_id` for `amount`
    (what the table gives back); the wallet names the seat and the player's account."""
    from croupier.wallet.v1 import wallet_pb2

    return wallet_pb2.WalletRequest(
        cash_out=wallet_pb2.CashOutRequest(
            transfer_id=transfer_id,
            player_id=player,
            game=GAMES.get(game, common_pb2.GAME_UNSPECIFIED),
            table_id=table_id,
            amount=common_pb2.Money(amount_minor=amount, currency=currency),
        )
    )
