"""One bot at one table: it reads its seat's views as the host sends them and, when its
policy has an action, thinks for a while like a person would, then acts (if nothing changed
meanwhile; else it decides again on the newer view).

The think time is drawn from the bot's own seeded `random.Random` in `Pacing`'s range and
awaited through the injected `sleep`. A refused action (a view that went stale while the
bot thought) is dropped: the next view decides.
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import dataclass

from croupier.bots.service.policies import Policy
from croupier.bots.service.ports import SeatHost, SeatUpdate, Sleep
from croupier.game import RuleBroken
from croupier.kit.tasks import cancel

__all__ = ["Pacing", "SeatedBot"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Pacing:
    """A decision takes between `low` and `high` seconds (uniformly drawn)."""

    low: float
    high: float

    def think(self, rng: random.Random) -> float:
        return rng.uniform(self.low, self.high)


class SeatedBot:
    def __init__(
        self,
        *,
        table_id: str,
        player: str,
        policy: Policy,
        host: SeatHost,
        pacing: Pacing,
        rng: random.Random,
        sleep: Sleep,
    ) -> None:
        self.table_id = table_id
        self.player = player
        self._policy = policy
        self._host = host
        self._pacing = pacing
        self._rng = rng
        self._sleep = sleep
        self._latest: SeatUpdate | None = None
        self._changed = asyncio.Event()
        self._ended = False
        self.actions = 0

    async def play(self) -> None:
        """Play until the table closes (or the view stream ends)."""
        reader = asyncio.create_task(self._read(), name=f"bot:{self.player}:views")
        try:
            await self._decide_loop()
        finally:
            await cancel(reader)

    async def _read(self) -> None:
        try:
            async for update in self._host.watch(self.table_id, self.player):
                self._latest = update
                self._changed.set()
                if update.closed:
                    break
        finally:
            self._ended = True
            self._changed.set()

    async def _decide_loop(self) -> None:
        while True:
            await self._changed.wait()
            self._changed.clear()
            update = self._latest
            if update is None:
                if self._ended:
                    return
                continue
            if update.closed or self._ended:
                return
            action = self._policy.decide(update.view)
            if action is None:
                continue
            await self._sleep(self._pacing.think(self._rng))
            if self._latest is not update:
                self._changed.set()  # the table moved while it thought: decide again
                continue
            try:
                await self._host.act(
                    self.table_id, self.player, f"{self.player}:{update.version}", action
                )
                self.actions += 1
            except RuleBroken as refused:
                _log.info(
                    "bot action refused",
                    extra={"table_id": self.table_id, "bot": self.player, "error": str(refused)},
                )
