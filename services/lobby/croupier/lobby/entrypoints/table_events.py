"""`croupier.table.events` → the listing (a seat taken or freed, a table closed, a poker
hand's pots for the average pot) and the
ratings (a game or match ended, rated once per envelope id). Translation only; events of
tables the lobby did not open are ignored by the service."""

from __future__ import annotations

import json

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.lobby.service.ratings import Ratings
from croupier.lobby.service.tables import Tables
from croupier.table.v1 import table_pb2

__all__ = ["TABLE_EVENTS_TOPIC", "TableEvents"]

TABLE_EVENTS_TOPIC = "croupier.table.events"
RESULTS = ("game_ended", "match_ended")


class TableEvents:
    def __init__(self, tables: Tables, ratings: Ratings) -> None:
        self._tables = tables
        self._ratings = ratings

    async def handle(self, envelope: Envelope) -> None:
        kind = envelope.type.removeprefix("table.")
        if kind not in ("player_seated", "player_left", "table_closed", "hand_end", *RESULTS):
            return
        event = table_pb2.ActionTaken()
        envelope.payload.Unpack(event)
        data = json.loads(event.public_json or "{}")
        if kind in RESULTS:
            await self._ratings.result(envelope.id, event.table_id, kind, data)
            return
        if kind == "hand_end":  # poker: the hand's pots, side pots included
            pot = sum(int(p["amount"]) for p in data.get("pots") or [])
            await self._tables.seen(event.table_id, kind, pot=pot, sequence=envelope.sequence)
            return
        await self._tables.seen(event.table_id, kind, str(data.get("player", "")))
