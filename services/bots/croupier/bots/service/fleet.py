"""The bots service's use cases: follow the tables' listings, seat bots where they are due
(`croupier.bots.core.fill`), and run each seated bot (`SeatedBot`) until its table closes.

Seats are taken through the lobby, the one gate of every seat (its checks, its holds, the
BOT label on the host); a refusal (the seat went to someone else, the table filled up) is
the lobby's last word, and the next listing decides again. A listing naming a bot of this
service that no task plays (the service restarted) starts one for it again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from croupier.bots.core.fill import Listing, bots_due
from croupier.bots.service.policies import GAMES_PLAYED, policy_for, stack_for
from croupier.bots.service.ports import Clock, Lobby, Names, SeatHost, Sleep
from croupier.bots.service.seat import Pacing, SeatedBot
from croupier.game import RuleBroken
from croupier.kit.errors import Unavailable
from croupier.kit.tasks import cancel
from croupier.table.service.money import PLAY_CURRENCIES

__all__ = ["BOT_PREFIX", "Fleet", "FleetSettings"]

_log = logging.getLogger(__name__)

#: Every bot account this service makes starts so (and no other account does: the lobby's
#: ids for people come from the gateway's authenticated players).
BOT_PREFIX = "bot:"


#: People take one to four seconds a decision; so do the bots by default.
HUMAN_PACE = Pacing(1.0, 4.0)


@dataclass(frozen=True)
class FleetSettings:
    fill_after: timedelta = timedelta(seconds=20)
    pacing: Pacing = HUMAN_PACE
    seed: str = "bots"
    """Seeds each bot's random choices and think times (`<seed>/<bot id>`)."""
    currencies: frozenset[str] = PLAY_CURRENCIES
    """Bots hold no money: they sit only at tables played in these currencies."""


@dataclass
class _Followed:
    listing: Listing
    since: datetime | None = None


class Fleet:
    def __init__(
        self,
        *,
        lobby: Lobby,
        host: SeatHost,
        clock: Clock,
        sleep: Sleep,
        names: Names,
        settings: FleetSettings,
    ) -> None:
        self._lobby = lobby
        self._host = host
        self._clock = clock
        self._sleep = sleep
        self._names = names
        self._settings = settings
        self._tables: dict[str, _Followed] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self.seated: dict[str, SeatedBot] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def _plays(self, listing: Listing) -> bool:
        return listing.currency in self._settings.currencies and listing.game in GAMES_PLAYED

    async def listed(self, listing: Listing) -> None:
        """A table's listing changed (the lobby's `lobby.table_listed`)."""
        followed = self._tables.get(listing.table_id)
        if followed is not None and followed.listing.version >= listing.version:
            return  # an older or repeated event
        if listing.closed or not self._plays(listing):
            self._tables.pop(listing.table_id, None)
            self._locks.pop(listing.table_id, None)
            return
        since = followed.since if followed is not None else None
        if not listing.fillable():
            since = None
        elif since is None:
            since = self._clock()
        self._tables[listing.table_id] = _Followed(listing, since)
        await self._fill(listing.table_id)

    async def tick(self) -> None:
        """Seat the bots whose wait is over."""
        for table_id in list(self._tables):
            await self._fill(table_id)

    async def _fill(self, table_id: str) -> None:
        lock = self._locks.setdefault(table_id, asyncio.Lock())
        async with lock:
            followed = self._tables.get(table_id)
            if followed is None:
                return
            listing = followed.listing
            # Under the table's lock: a bot being seated here is not taken for one seated
            # before this process started, which its listing may already name.
            for bot in listing.bots:
                if bot.startswith(BOT_PREFIX) and bot not in self.seated:
                    self._start(listing, bot)
            due = bots_due(listing, followed.since, self._clock(), self._settings.fill_after)
            options = json.loads(listing.options_json)
            for _ in range(due):
                bot = self._names()
                try:
                    await self._lobby.seat_bot(
                        table_id=table_id, bot=bot, stack=stack_for(listing.game, options)
                    )
                except (RuleBroken, Unavailable) as refused:
                    _log.info("bot not seated", extra={"table_id": table_id, "error": str(refused)})
                    break
                listing = replace(
                    listing,
                    seats_taken=listing.seats_taken + 1,
                    seated=(*listing.seated, bot),
                    bots=listing.bots | {bot},
                    bots_wanted=max(0, listing.bots_wanted - 1),
                )
                self._start(listing, bot)
            followed.listing = listing

    def _start(self, listing: Listing, bot: str) -> None:
        if bot in self._tasks:
            return
        rng = random.Random(f"{self._settings.seed}/{bot}")
        policy = policy_for(listing.game, bot, rng, json.loads(listing.options_json))
        if policy is None:
            return
        seated = SeatedBot(
            table_id=listing.table_id,
            player=bot,
            policy=policy,
            host=self._host,
            pacing=self._settings.pacing,
            rng=rng,
            sleep=self._sleep,
        )
        self.seated[bot] = seated
        task = asyncio.create_task(seated.play(), name=f"bot:{bot}")
        self._tasks[bot] = task
        task.add_done_callback(lambda done: self._ended(bot, done))

    def _ended(self, bot: str, task: asyncio.Task[None]) -> None:
        self._tasks.pop(bot, None)
        self.seated.pop(bot, None)
        if not task.cancelled() and task.exception() is not None:
            _log.error("bot stopped", extra={"bot": bot}, exc_info=task.exception())

    async def stop(self) -> None:
        """Stop every bot (their seats stay: the host's clocks play them)."""
        tasks, self._tasks = list(self._tasks.values()), {}
        for task in tasks:
            await cancel(task)
