"""What the host puts on the bus: its topics, envelopes whose ids come from a table's log,
and the public table events (the wallet's requests: `adapters.wallet_requests`).

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


def event_message(table_id: str, game: str, event: Event) -> table_pb2.ActionTaken:
    """A public engine/host event as it travels on `croupier.table.events`."""
    return table_pb2.ActionTaken(
        table_id=table_id,
        hand_number=int(event.data.get("hand_number", 0)),
        public_json=json.dumps({"type": event.type, **event.data}, sort_keys=True, default=str),
    )
