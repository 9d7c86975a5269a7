"""The table host's public events (`croupier.table.events`) → the director: a rummy
round's end (`RoundSettled`, the engine's result) becomes a `RoundResult`, a poker hand's
end (`hand_ended` with the stacks at its end) a `HandResult`; every other event is not the
director's (nor a hand of a table it did not open: `PokerPlay` ignores it). Translation
only.

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
from croupier.tournament.service.poker_play import HandResult

__all__ = ["CONSUMER_GROUP", "TABLE_EVENTS_TOPIC", "hand_result", "round_result", "subscribe"]

TABLE_EVENTS_TOPIC = "croupier.table.events"
CONSUMER_GROUP = "croupier-tournament-director"
_ROUND_SETTLED = "table.RoundSettled"
_HAND_ENDED = "table.hand_ended"


def _public(envelope: Envelope) -> tuple[str, dict[str, Any]] | None:
    """The table id and the public JSON of a table event."""
    from croupier.table.v1 import table_pb2

    taken = table_pb2.ActionTaken()
    if not envelope.payload.Unpack(taken):
        return None
    return taken.table_id, json.loads(taken.public_json)


def hand_result(envelope: Envelope) -> HandResult | None:
    """A poker hand's end an envelope carries, or None for any other event."""
    if envelope.type != _HAND_ENDED:
        return None
    public = _public(envelope)
    if public is None:
        return None
    table_id, ended = public
    stacks = (ended.get("result") or {}).get("stacks")
    if not isinstance(stacks, dict):
        return None  # another game's hand
    return HandResult(table_id, {player: int(chips) for player, chips in stacks.items()})


def round_result(envelope: Envelope) -> RoundResult | None:
    """The round's result an envelope carries, or None for any other event."""
    if envelope.type != _ROUND_SETTLED:
        return None
    public = _public(envelope)
    if public is None:
        return None
    table_id, settled = public
    winner = settled.get("winner")
    penalty = settled.get("penalty") or {}
    # Every player paid a fee into the pot; a loser the engine charged nothing has 0.
    return RoundResult(
        table_id=table_id,
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
        hand = hand_result(envelope)
        if hand is not None:
            await director.hand_ended(hand)

    return await bus.subscribe(
        TABLE_EVENTS_TOPIC,
        group=group,
        handler=handle,
        deduplicator=InMemoryDeduplicator(),
        # A table's every action is on this topic; the director reads only rounds' and
        # hands' ends (3 % of a poker room's events): the rest are not even decoded.
        types=(_ROUND_SETTLED, _HAND_ENDED),
    )
