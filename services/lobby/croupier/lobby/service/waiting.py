"""Cash-table waiting lists by stake: an account waits for a seat at any public table of
one kind (the game's options without the stake: variant, seats, buy-in range...) at one
stake, and is seated, in the order the list was joined, when a seat frees at such a table
(the ticker's pass, `seat_waiting`). A seat is taken through `Tables.join`, the same path
as a player's own join: the account's limits, the hold while the host seats him (and the
wallet takes his buy-in). An entry whose seat is refused (his buy-in, his limits) leaves
the list, so nobody behind him waits on a seat he cannot take."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping

from croupier.game import RuleBroken
from croupier.game.limits import check_amount, echo
from croupier.lobby.core.errors import AlreadyThere, NotFound
from croupier.lobby.core.policy import check_player, check_stake_allowed
from croupier.lobby.core.terms import Terms, terms_of
from croupier.lobby.service.ports import Clock, Repository
from croupier.lobby.service.records import WaitingEntry
from croupier.lobby.service.tables import Tables

__all__ = ["WaitingLists", "list_key"]

_log = logging.getLogger(__name__)


def list_key(terms: Terms) -> str:
    """The list of tables with these terms: same kind, currency and stake."""
    return json.dumps([terms.shape, terms.currency, terms.stake])


class WaitingLists:
    def __init__(self, *, repository: Repository, tables: Tables, clock: Clock) -> None:
        self._repository = repository
        self._tables = tables
        self._clock = clock
        # One seating pass at a time: two passes would both seat a player waiting (at two
        # tables). Replicas are not kept apart yet: run the ticker on one.
        self._seating = asyncio.Lock()

    async def join(
        self, *, player: str, game: str, options: Mapping[str, object], stack: int
    ) -> int:
        """Put `player` on the list of tables like `options` (its stake included); his
        place on it (1: next), or 0 if a seat was free and he is seated already."""
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
        async with self._seating:  # his list only, those before him first
            await self._seat([e for e in await self._repository.waiting() if e.list_key == key])
        return await self.place(key, player)

    async def place(self, key: str, player: str) -> int:
        """`player`'s place on the list `key` (1: next), 0 if he is not on it."""
        on_list = [e.player for e in await self._repository.waiting() if e.list_key == key]
        return on_list.index(player) + 1 if player in on_list else 0

    async def leave(self, *, player: str, game: str, options: Mapping[str, object]) -> None:
        check_player(player)
        if not await self._repository.remove_waiting(list_key(terms_of(game, options)), player):
            raise NotFound("not_waiting", f"{echo(player)} is not on this waiting list")

    async def seat_waiting(self) -> list[tuple[str, str]]:
        """Seat the waiting players, oldest first, in the free seats of public tables of
        their list; the (player, table) pairs seated."""
        async with self._seating:
            return await self._seat(await self._repository.waiting())

    async def _seat(self, entries: list[WaitingEntry]) -> list[tuple[str, str]]:
        if not entries:
            return []
        tables: dict[str, list[str]] = {}
        for record in await self._repository.open_tables():
            table = record.table
            if not table.private and table.free_seats() > 0:
                tables.setdefault(list_key(table.terms), []).append(table.table_id)
        seated: list[tuple[str, str]] = []
        for entry in entries:
            for table_id in tables.get(entry.list_key, ()):
                record = await self._tables.get(table_id)
                if record.table.free_seats() == 0 or record.table.has(entry.player):
                    continue
                try:
                    await self._tables.join(table_id, entry.player, entry.stack)
                    seated.append((entry.player, table_id))
                except RuleBroken as refused:
                    _log.info("waiting list: %s not seated: %s", entry.player, refused)
                await self._repository.remove_waiting(entry.list_key, entry.player)
                break
        return seated
