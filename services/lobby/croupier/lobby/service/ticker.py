"""The lobby's clock work: every `interval` seconds match the waiting tickets (and place
the matches), release seat holds whose time ran out, and seat waiting-list players in
the seats that freed. Tests call `Matchmaking.process`, `Tables.expire_holds` and
`WaitingLists.seat_waiting` themselves with a clock they step, and never run this loop."""

from __future__ import annotations

import logging

from croupier.kit.tasks import Periodic
from croupier.lobby.service.matchmaking import Matchmaking
from croupier.lobby.service.tables import Tables
from croupier.lobby.service.waiting import WaitingLists

__all__ = ["ticker"]

_log = logging.getLogger(__name__)


def ticker(
    matchmaking: Matchmaking, tables: Tables, waiting: WaitingLists, interval_seconds: float
) -> Periodic:
    """The lobby's ticker, not yet started."""

    async def tick() -> None:
        await matchmaking.process()
        await tables.expire_holds()
        await waiting.seat_waiting()

    return Periodic(
        tick,
        interval_seconds,
        name="lobby:ticker",
        failure="lobby ticker: matching, releasing holds or seating waiting lists failed",
        log=_log,
    )
