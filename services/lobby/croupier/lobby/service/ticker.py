"""The lobby's clock work: every `interval` seconds match the waiting tickets (and place
the matches), and release seat holds whose time ran out. Tests call
`Matchmaking.process` and `Tables.expire_holds` themselves with a clock they step, and
never run this loop."""

from __future__ import annotations

import logging

from croupier.kit.tasks import Periodic
from croupier.lobby.service.matchmaking import Matchmaking
from croupier.lobby.service.tables import Tables

__all__ = ["ticker"]

_log = logging.getLogger(__name__)


def ticker(matchmaking: Matchmaking, tables: Tables, interval_seconds: float) -> Periodic:
    """The lobby's ticker, not yet started."""

    async def tick() -> None:
        await matchmaking.process()
        await tables.expire_holds()

    return Periodic(
        tick,
        interval_seconds,
        name="lobby:ticker",
        failure="lobby ticker: matching or releasing holds failed",
        log=_log,
    )
