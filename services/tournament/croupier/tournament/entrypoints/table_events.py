"""The table host's public events (`croupier.table.events`) → the director: a rummy
round's end (`RoundSettled`, the engine's result) becomes a `RoundResult`; every other
event is not the director's. Translation only.

Redelivery is harmless twice over: envelope ids are deduplicated, and a result for a
round no longer running changes nothing.
"""

from __future__ import annotations

import json
from typing import Any

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.kit.bus.dedup import InMemoryDeduplicator
from croupier.kit.bus.interface import EventBus, Subscription
from croupier.tournament.service.director import Director
from croupier.tournament.service.plan import RoundResult

__all__ = ["CONSUMER_GROUP", "TABLE_EVENTS_TOPIC", "round_result", "subscribe"]

TABLE_EVENTS_TOPIC = "croupier.table.events"
CONSUMER_GROUP = "croupier-tournament-director"
_ROUND_SETTLED = "table.RoundSettled"


def round_result(envelope: Envelope) -> RoundResult | None:
    """The round's result an envelope carries, or None for any other event."""
    if envelope.type != _ROUND_SETTLED:
        return None
    from croupier.table.v1 import table_pb2

    taken = table_pb2.ActionTaken()
    if not envelope.payload.Unpack(taken):
        return None
    settled: dict[str, Any] = json.loads(taken.public_json)
    winner = settled.get("winner")
    penalty = settled.get("penalty") or {}
    # Every player paid a fee into the pot; a loser the engine charged nothing has 0.
    return RoundResult(
        table_id=taken.table_id,
        winner=winner if isinstance(winner, str) and winner else None,
        negative_points={
            player: int(penalty.get(player, 0)) for player in settled["fees"] if player != winner
        },
    )


async def subscribe(bus: EventBus, director: Director, group: str = CONSUMER_GROUP) -> Subscription:
    """Hand every round's result to `director`, from the oldest event `group` has not
    handled."""

    async def handle(envelope: Envelope) -> None:
        result = round_result(envelope)
        if result is not None:
            await director.round_ended(result)

    return await bus.subscribe(
        TABLE_EVENTS_TOPIC,
        group=group,
        handler=handle,
        deduplicator=InMemoryDeduplicator(),
    )
