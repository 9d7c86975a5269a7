"""`croupier.lobby.events` → the fleet: each `lobby.table_listed` is the table's listing
now (translation only; ticket events are not the bots' business)."""

from __future__ import annotations

import json

from croupier.bots.core.fill import Listing
from croupier.bots.service.fleet import Fleet
from croupier.events.v1.envelope_pb2 import Envelope
from croupier.lobby.codec import EVENTS_TOPIC, game_name, options_from_proto
from croupier.lobby.v1 import lobby_pb2 as pb

__all__ = ["EVENTS_TOPIC", "LobbyEvents", "listing_from_proto"]


def listing_from_proto(table: pb.TableListing, version: int) -> Listing:
    _, options = options_from_proto(table.options)
    return Listing(
        table_id=table.table_id,
        game=game_name(table.game),
        options_json=json.dumps(options),
        currency=table.stake.currency,
        seats=table.seats,
        seats_taken=table.seats_taken,
        seated=tuple(table.seated),
        bots=frozenset(table.bots),
        bots_wanted=table.bots_wanted,
        bots_allowed=table.bots_allowed,
        private=table.private,
        closed=table.status == pb.TABLE_STATUS_CLOSED,
        version=version,
    )


class LobbyEvents:
    def __init__(self, fleet: Fleet) -> None:
        self._fleet = fleet

    async def handle(self, envelope: Envelope) -> None:
        if envelope.type != "lobby.table_listed":
            return
        event = pb.TableListed()
        envelope.payload.Unpack(event)
        await self._fleet.listed(listing_from_proto(event.table, envelope.sequence))
