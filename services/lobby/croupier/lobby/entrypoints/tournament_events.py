"""`croupier.tournament.events` → the ratings (a finished tournament's entrants are rated
at its game by their final places, asked of the director, whose ranking is the truth,
once per envelope id) and the Sit & Go and Spin queues (a registration, unregistration,
start or cancel of a tournament a queue fills counts its players again). Translation
only."""

from __future__ import annotations

import logging

from croupier.events.v1.envelope_pb2 import Envelope
from croupier.game import Unknown
from croupier.lobby.service.ports import Director
from croupier.lobby.service.queues import TournamentQueues
from croupier.lobby.service.ratings import Ratings

__all__ = ["TOURNAMENT_EVENTS_TOPIC", "TournamentEvents"]

TOURNAMENT_EVENTS_TOPIC = "croupier.tournament.events"
_log = logging.getLogger(__name__)


_COUNTED = frozenset(
    f"tournament.{kind}" for kind in ("registered", "unregistered", "started", "cancelled")
)
"""The events that change a queue's count of players (`TournamentQueues.recount`)."""


class TournamentEvents:
    def __init__(self, director: Director, ratings: Ratings, queues: TournamentQueues) -> None:
        self._director = director
        self._ratings = ratings
        self._queues = queues

    async def handle(self, envelope: Envelope) -> None:
        if envelope.type in _COUNTED:
            await self._queues.recount(envelope.subject)
            return
        if envelope.type != "tournament.finished":
            return
        try:
            game, places = await self._director.final_places(envelope.subject)
        except Unknown:  # another director's (a shared broker): not ours to rate
            _log.info("tournament %s: unknown to the director, not rated", envelope.subject)
            return
        await self._ratings.tournament_places(envelope.id, game, places)
