"""Start tournaments at their time (rule 1) and keep running ones on the clock (levels,
rebuy windows, rules 17-18): a background task asks the director every `interval`
seconds. Tests call `Director.start_due` and `Rounds.advance_running` themselves with a clock they
step, and never run this loop."""

from __future__ import annotations

import logging

from croupier.kit.tasks import Periodic
from croupier.tournament.service.director import Director

__all__ = ["scheduler"]

_log = logging.getLogger(__name__)


def scheduler(director: Director, interval_seconds: float) -> Periodic:
    """The director's scheduler, not yet started."""

    async def tick() -> None:
        await director.start_due()
        await director.rounds.advance_running()

    return Periodic(
        tick,
        interval_seconds,
        name="tournament:scheduler",
        failure="tournament scheduler: starting or advancing tournaments failed",
        log=_log,
    )
