"""The lobby's clock work: every `interval` seconds match the waiting tickets (and place
the matches), release seat holds whose time ran out, and seat waiting-list players in
the seats that freed. With several replicas one ticks at a time (`TickLock`: the one
that holds it does this tick's work; the others only read the tables they changed into
their free-seat index). Tests call `Matchmaking.process`, `Tables.expire_holds` and
`WaitingLists.seat_waiting` themselves with a clock they step, and never run this loop."""

from __future__ import annotations

import logging

from croupier.kit.tasks import Periodic
from croupier.lobby.service.matchmaking import Matchmaking
from croupier.lobby.service.ports import TickLock
from croupier.lobby.service.tables import Tables
from croupier.lobby.service.waiting import WaitingLists

__all__ = ["ticker"]

_log = logging.getLogger(__name__)


def ticker(
    matchmaking: Matchmaking,
    tables: Tables,
    waiting: WaitingLists,
    interval_seconds: float,
    alone: TickLock | None = None,
) -> Periodic:
    """The lobby's ticker, not yet started; with `alone`, its work done only while this
    replica holds that lock."""

    async def work() -> None:
        await matchmaking.process()
        await tables.expire_holds()
        await waiting.seat_waiting()

    async def tick() -> None:
        if alone is None:
            await work()
            return
        async with alone() as mine:
            if mine:
                await work()
            else:
                await tables.catch_up()

    return Periodic(
        tick,
        interval_seconds,
        name="lobby:ticker",
        failure="lobby ticker: matching, releasing holds or seating waiting lists failed",
        log=_log,
    )
