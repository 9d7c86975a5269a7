"""Cash-table waiting lists by stake: an account waits for a seat at any public table of
one kind (the game's options without the stake: variant, seats, buy-in range...) at one
stake, and is seated, in the order the list was joined, when a seat frees at such a table
(the ticker's pass, `seat_waiting`). A seat is taken through `Tables.join`, the same path
as a player's own join: the account's limits, the hold while the host seats him (and the
wallet takes his buy-in). An entry whose seat is refused (his buy-in, his limits) leaves
the list, so nobody behind him waits on a seat he cannot take."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

from croupier.game import RuleBroken
from croupier.game.limits import check_amount, echo
from croupier.lobby.core.errors import AlreadyThere, NotFound
from croupier.lobby.core.free_seats import list_key
from croupier.lobby.core.policy import check_player, check_stake_allowed
from croupier.lobby.core.terms import terms_of
from croupier.lobby.service.ports import Clock, Repository
from croupier.lobby.service.records import WaitingEntry
from croupier.lobby.service.tables import Tables

__all__ = ["WaitingLists"]

_log = logging.getLogger(__name__)


_Outcome = str | RuleBroken | None
"""A waiting player's seating: the table he sits at, the refusal of his seat, or nothing
(no seat after all: he is back at his place)."""


@dataclass
class _Passes:
    """One list's seating passes: one at a time; a pass asked for while one runs is the
    next one, shared by everyone who asked meanwhile. A pass hands the free seats out in
    the list's order and starts the seatings; it does not wait for them."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    asked: int = 0
    done: int = 0
    """The last request the passes have covered (a pass covers the requests made before
    it started: their entries were stored by then)."""


class WaitingLists:
    def __init__(self, *, repository: Repository, tables: Tables, clock: Clock) -> None:
        self._repository = repository
        self._tables = tables
        self._clock = clock
        self._passes: dict[str, _Passes] = {}
        self._seating: dict[tuple[str, str], asyncio.Task[_Outcome]] = {}
        """The seatings running, by list and player (a later pass passes them over)."""

    async def join(
        self, *, player: str, game: str, options: Mapping[str, object], stack: int
    ) -> int:
        """Put `player` on the list of tables like `options` (its stake included); his
        place on it (1: next), or 0 if a seat was free and he is seated already. A seat
        refused to him (his buy-in) is his refusal, and he leaves the list."""
        check_player(player)
        check_amount(stack, "stack")
        terms = terms_of(game, options)
        limits = await self._repository.limits(player)
        check_stake_allowed(player, limits, terms.currency, terms.stake)
        key = list_key(terms)
        entry = WaitingEntry(
            key, player, game, terms.currency, terms.stake, stack, created=self._clock()
        )
        if not await self._repository.add_waiting(entry):
            raise AlreadyThere("already_waiting", f"{echo(player)} is on this list already")
        if await self._tables.has_seat(key):  # those before him first
            await self._pass(key)
            seating = self._seating.get((key, player))
            outcome = await seating if seating is not None else None
            if isinstance(outcome, RuleBroken):
                raise outcome
            if outcome is not None:
                return 0
        return await self.place(key, player)

    async def place(self, key: str, player: str) -> int:
        """`player`'s place on the list `key` (1: next), 0 if he is not on it; those
        being seated now are not counted."""
        on_list = [
            e.player
            for e in await self._repository.waiting(key)
            if (key, e.player) not in self._seating
        ]
        return on_list.index(player) + 1 if player in on_list else 0

    async def leave(self, *, player: str, game: str, options: Mapping[str, object]) -> None:
        check_player(player)
        if not await self._repository.remove_waiting(list_key(terms_of(game, options)), player):
            raise NotFound("not_waiting", f"{echo(player)} is not on this waiting list")

    async def seat_waiting(self) -> list[tuple[str, str]]:
        """Seat the waiting players, oldest first, in the free seats of public tables of
        their list (other replicas' changes read first); the (player, table) pairs seated."""
        await self._tables.catch_up()
        with_seats = set(self._tables.lists_with_seats())
        keys = {e.list_key for e in await self._repository.waiting() if e.list_key in with_seats}
        passes = await asyncio.gather(*(self._seat_list(key) for key in sorted(keys)))
        return [pair for seated in passes for pair in seated]

    async def _seat_list(self, key: str) -> list[tuple[str, str]]:
        """Passes over list `key` until its free seats are taken or nobody waits: the
        seats refused to one (his buy-in) go to those behind him."""
        seated: list[tuple[str, str]] = []
        while seatings := await self._pass(key):
            outcomes = await asyncio.gather(*(task for _, task in seatings))
            seated += [
                (p, o) for (p, _), o in zip(seatings, outcomes, strict=True) if isinstance(o, str)
            ]
            if all(isinstance(outcome, str) for outcome in outcomes):
                break
        return seated

    async def _pass(self, key: str) -> list[tuple[str, asyncio.Task[_Outcome]]]:
        """Have a pass over list `key` start after this call and wait until it has handed
        the seats out: the seatings it started ([] if another caller's pass covered this
        call)."""
        passes = self._passes.setdefault(key, _Passes())
        passes.asked += 1
        mine = passes.asked
        async with passes.lock:
            if passes.done >= mine:
                return []
            covers = passes.asked
            try:
                return self._start_seating(await self._repository.waiting(key))
            finally:
                passes.done = covers

    def _start_seating(
        self, entries: list[WaitingEntry]
    ) -> list[tuple[str, asyncio.Task[_Outcome]]]:
        """The list's free seats to its first entries not being seated already, in order."""
        started: list[tuple[str, asyncio.Task[_Outcome]]] = []
        for entry in entries:
            running = (entry.list_key, entry.player)
            if running in self._seating:
                continue
            table_id = self._tables.claim_seat(entry.list_key)
            if table_id is None:
                break
            task = asyncio.create_task(self._seat_one(entry, table_id))
            self._seating[running] = task
            task.add_done_callback(functools.partial(self._seated, running))
            started.append((entry.player, task))
        return started

    def _seated(self, running: tuple[str, str], _: object) -> None:
        del self._seating[running]

    async def _seat_one(self, entry: WaitingEntry, table_id: str) -> _Outcome:
        """Seat `entry`'s player at `table_id` (claimed for him), or at another table of
        the list if that one filled meanwhile; he leaves the list first, so another
        replica's pass does not seat him too, and comes back to his place if no seat
        was his after all."""
        if not await self._repository.remove_waiting(entry.list_key, entry.player):
            self._tables.release_claim(table_id)  # another pass took him, or he left
            return None
        try:
            seated = await self._tables.seat_claimed(table_id, entry.player, entry.stack)
            found = table_id if seated else None
            if found is None:
                found = await self._tables.quick_seat(entry.list_key, entry.player, entry.stack)
        except RuleBroken as refused:
            _log.info("waiting list: %s not seated: %s", entry.player, refused)
            return refused
        except Exception:
            await self._repository.add_waiting(entry)  # the host unreachable: he waits on
            raise
        if found is None:
            await self._repository.add_waiting(entry)
        return found
