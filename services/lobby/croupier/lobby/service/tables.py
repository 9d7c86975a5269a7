"""The lobby's table use cases: open a table on the host, join it (a seat held while the
host seats the player), invite, list and watch; and what the host's events and the
passing time change (seats taken or freed, tables closed, holds run out).

One table's changes run one at a time in this process (a lock per table); replicas are
kept apart by the record's version (`Conflict`: the caller retries).

Every record saved or read here is noted in the free-seat index (`core.free_seats`), which
is built from the store when first needed (at start) and catches up with other replicas'
saves by their change numbers: a quick seat takes the fullest table of its list with a
free seat without reading every table, and the store checks the seat when it is held.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Mapping
from dataclasses import replace
from datetime import timedelta
from typing import Any

from croupier.game.limits import check_amount, echo
from croupier.lobby.core.errors import AlreadyThere, InvalidInput, NotAllowed, NotFound
from croupier.lobby.core.free_seats import FreeSeats, seat_count
from croupier.lobby.core.policy import check_id, check_player, check_stake_allowed
from croupier.lobby.core.seats import Hold, LobbyTable
from croupier.lobby.core.terms import terms_of
from croupier.lobby.service.listing import TableFilter
from croupier.lobby.service.ports import Clock, Codes, Repository, TableClock, TableHost
from croupier.lobby.service.records import TableRecord

__all__ = ["DEFAULT_HOLD", "NO_CLOCK", "WATCH_POLL_SECONDS", "Tables"]

NO_CLOCK = TableClock()
"""The game's default clocks."""

DEFAULT_HOLD = timedelta(seconds=30)
#: A watcher re-reads the store at least this often: another replica's changes reach it
#: although no local save woke it.
WATCH_POLL_SECONDS = 1.0
#: A quick seat passes over a table refused for these reasons and tries the next one.
_TAKEN = frozenset({"table_full", "table_closed", "already_seated"})


def _key_used_up(request_key: str, table_id: str) -> NotAllowed:
    """An open retried after its table closed (its opener's buy-in was refused, or it was
    played and closed): answering that table again would look like a new one opened."""
    return NotAllowed(
        "table_closed",
        f"the table request_key {echo(request_key)} opened ({table_id}) is closed: "
        "open another with a new request_key",
    )


class Tables:
    def __init__(
        self,
        *,
        repository: Repository,
        host: TableHost,
        clock: Clock,
        codes: Codes,
        hold_for: timedelta = DEFAULT_HOLD,
    ) -> None:
        self._repository = repository
        self._host = host
        self._clock = clock
        self._codes = codes
        self._hold_for = hold_for
        self._lock = _Locks().of
        self._saved = asyncio.Condition()
        self._free = FreeSeats()
        self._indexed = False
        self._indexing = asyncio.Lock()
        self._seen_change = 0  # the store's change number the index has read up to

    async def get(self, table_id: str) -> TableRecord:
        record = await self._repository.table(check_id(table_id, "table_id"))
        if record is None:
            raise NotFound("unknown_table", f"no table {echo(table_id)} in the lobby")
        self._free.note(seat_count(record.table, record.version))
        return record

    async def _save(self, record: TableRecord, table: LobbyTable) -> TableRecord:
        if table == record.table:
            return record
        saved = await self._repository.save_table(
            replace(record, table=table, version=record.version + 1)
        )
        self._free.note(seat_count(saved.table, saved.version))
        await self._announce()
        return saved

    # --- use cases ----------------------------------------------------------------------

    async def open(
        self,
        *,
        player: str,
        request_key: str,
        game: str,
        options: Mapping[str, object],
        clock: TableClock = NO_CLOCK,
        invited: Iterable[str] | None = None,
        with_code: bool = False,
        stack: int = 0,
        bots_allowed: bool = False,
    ) -> TableRecord:
        """Open a table on the host and seat `player` there (seat 0). `invited` (a list,
        even empty) or `with_code` make it private; `bots_allowed` lets bots fill its free
        seats. The same `request_key` answers the table it opened."""
        check_player(player)
        check_id(request_key, "request_key")
        check_amount(stack, "stack")
        if bots_allowed and game == "poker":
            # The poker host refuses a bot at a table whose options do not allow them.
            options = {**options, "bots_allowed": True}
        terms = terms_of(game, options)
        limits = await self._repository.limits(player)
        check_stake_allowed(player, limits, terms.currency, terms.stake)
        invitees = frozenset(check_player(p) for p in invited or ())
        record, created = await self._open_on_host(
            f"{player}/{request_key}",  # one player's keys never meet another's
            game,
            options,
            clock,
            owner=player,
            private=invited is not None or with_code,
            invited=invitees,
            invite_code=self._codes() if with_code else "",
            bots_allowed=bots_allowed,
        )
        table_id = record.table.table_id
        if not created and record.table.closed:
            raise _key_used_up(request_key, table_id)
        # A retry after a lobby died between opening and seating seats the opener then.
        unfinished = not (record.table.seated or record.table.holds)
        if created or unfinished:
            try:
                await self.join(table_id, player, stack)
            except Exception:
                # The opener could not sit (his buy-in was refused): nobody waits at it.
                await self._host.close_table(table_id)
                await self.seen(table_id, "table_closed")
                raise
        return await self.get(table_id)

    async def open_matched(
        self, match_id: str, game: str, options: Mapping[str, object]
    ) -> TableRecord:
        """A match's table: public, the lobby's, nobody seated yet; opened once per match."""
        record, _ = await self._open_on_host(match_id, game, options, NO_CLOCK, owner="")
        return record

    async def _open_on_host(
        self,
        request_key: str,
        game: str,
        options: Mapping[str, object],
        clock: TableClock,
        bots_allowed: bool = False,
        **fields: Any,
    ) -> tuple[TableRecord, bool]:
        existing = await self._repository.table_by_key(request_key)
        if existing is not None:
            return existing, False
        table_id = await self._host.open_table(
            game=game, options=options, clock=clock, request_key=f"lobby:{request_key}"
        )
        terms = terms_of(game, options)
        table = LobbyTable(
            table_id=table_id,
            options_json=json.dumps(dict(options), sort_keys=True),
            terms=replace(terms, bots_allowed=terms.bots_allowed or bots_allowed),
            clock_seconds=(clock.turn_seconds, clock.reserve_seconds, clock.reconnect_seconds),
            **fields,
        )
        record, created = await self._repository.add_table(TableRecord(table, request_key))
        self._free.note(seat_count(record.table, record.version))
        await self._announce()
        return record, created

    async def join(
        self, table_id: str, player: str, stack: int, invite_code: str = "", *, bot: bool = False
    ) -> tuple[int, TableRecord]:
        """Hold a free seat, have the host seat `player` (a `bot`: labelled BOT, where the
        table takes bots), then record the seat; the hold is released if the host refuses
        (or expires if this process dies meanwhile)."""
        check_player(player)
        check_amount(stack, "stack")
        if len(invite_code) > 100:
            raise InvalidInput("invalid_invite_code", "invite_code is at most 100 characters")
        async with self._lock(table_id):
            hold = await self._hold(table_id, player, invite_code, bot)
            return hold.seat, await self._seat_on_host(table_id, player, hold, stack)

    async def _hold(self, table_id: str, player: str, invite_code: str, bot: bool) -> Hold:
        """Hold a free seat for `player` (the table's lock held)."""
        record = await self.get(table_id)
        terms = record.table.terms
        limits = await self._repository.limits(player)
        check_stake_allowed(player, limits, terms.currency, terms.stake)
        held, hold = record.table.reserve(
            player, self._clock(), self._hold_for, invite_code, bot=bot
        )
        await self._save(record, held)
        return hold

    async def quick_seat(self, list_key: str, player: str, stack: int) -> str | None:
        """Seat `player` at the fullest public table of the list `list_key` with a free
        seat, found in the free-seat index; the table, or None if no such table has a seat
        for him. The refusals of his own (his buy-in, his limits) are raised."""
        await self.index_free_seats()
        passed: set[str] = set()
        while (table_id := self.claim_seat(list_key, passed)) is not None:
            passed.add(table_id)
            if await self.seat_claimed(table_id, player, stack):
                return table_id
        return None

    def claim_seat(self, list_key: str, passed: Iterable[str] = ()) -> str | None:
        """A table of the list with a seat left, not `passed`, kept for `seat_claimed`."""
        return self._free.claim(list_key, passed)

    def release_claim(self, table_id: str) -> None:  # the seat claimed is not taken
        self._free.unclaim(table_id)

    async def seat_claimed(self, table_id: str, player: str, stack: int) -> bool:
        """Seat `player` in the seat `claim_seat` handed out (through `join`'s hold and
        the host); False if the table was full or closed after all, or he sits there."""
        async with self._lock(table_id):
            try:
                hold = await self._hold(table_id, player, "", bot=False)
            except (NotAllowed, AlreadyThere) as refused:
                if refused.reason in _TAKEN:
                    return False  # the index has read the table meanwhile
                raise
            finally:
                self._free.unclaim(table_id)  # the hold, saved, counts from now
            await self._seat_on_host(table_id, player, hold, stack)
        return True

    async def has_seat(self, list_key: str) -> bool:  # a free seat, as the index knows
        await self.index_free_seats()
        return self._free.has_seat(list_key)

    def lists_with_seats(self) -> list[str]:  # with a free seat, as the index knows
        return self._free.lists_with_seats()

    async def index_free_seats(self) -> None:
        """Build the free-seat index from the store's open tables, once (at start)."""
        if self._indexed:
            return
        async with self._indexing:
            if self._indexed:
                return
            counts, self._seen_change = await self._repository.seat_counts()
            for count in counts:
                self._free.note(count)
            self._indexed = True

    async def catch_up(self) -> None:
        """Note the tables other replicas saved since the index last read the store."""
        await self.index_free_seats()
        async with self._indexing:
            for record in await self._repository.changed_since(self._seen_change):
                self._free.note(seat_count(record.table, record.version))
                self._seen_change = max(self._seen_change, record.change)

    async def finish_hold(self, table_id: str, player: str, stack: int) -> tuple[int, TableRecord]:
        """Finish the seat this lobby holds for `player` but never heard the host answer
        for (the process died in between): confirm it if the host seated him, else have
        the host seat him now. Nobody is seated twice, nobody is left holding."""
        async with self._lock(table_id):
            record = await self.get(table_id)
            hold = next(h for h in record.table.holds if h.player == player)
            if await self._host.is_seated(table_id, player):
                return hold.seat, await self._save(record, record.table.confirm(player))
            return hold.seat, await self._seat_on_host(table_id, player, hold, stack)

    async def _seat_on_host(
        self, table_id: str, player: str, hold: Hold, stack: int
    ) -> TableRecord:
        """Have the host seat the holder of `hold`, then turn the hold into his seat; a
        refusal releases it."""
        try:
            await self._host.seat(
                table_id=table_id, player=player, seat=hold.seat, stack=stack, is_bot=hold.bot
            )
        except Exception:
            record = await self.get(table_id)
            await self._save(record, record.table.release(player))
            raise
        record = await self.get(table_id)
        return await self._save(record, record.table.confirm(player))

    async def invite(self, table_id: str, owner: str, players: Iterable[str]) -> TableRecord:
        invitees = [check_player(p) for p in players]
        async with self._lock(table_id):
            record = await self.get(table_id)
            return await self._save(record, record.table.invite(owner, invitees))

    async def add_bots(self, table_id: str, owner: str, count: int) -> TableRecord:
        """The owner asks for bots in `count` free seats; the bots service, told by the
        table's listing event, seats them."""
        async with self._lock(table_id):
            record = await self.get(table_id)
            return await self._save(record, record.table.add_bots(owner, count))

    async def listed(self, player: str, table_filter: TableFilter) -> list[TableRecord]:
        return [r for r in await self._repository.open_tables() if table_filter.shows(r, player)]

    def watch(self, player: str, table_filter: TableFilter) -> AsyncGenerator[TableRecord, None]:
        """The tables the filter shows, then every change (once more when one stops showing)."""
        return _watch(self._repository, self._saved, player, table_filter)

    # --- what the host and the time change -------------------------------------------

    async def seen(
        self, table_id: str, change: str, player: str = "", pot: int = 0, sequence: int = 0
    ) -> None:
        """What the host's events say happened at a table the lobby opened (others are
        ignored): "player_seated", "player_left", "table_closed", or (poker) "hand_end"
        with the hand's `pot` (the average pot) and its event's `sequence`."""
        async with self._lock(table_id):
            record = await self._repository.table(table_id)
            if record is None:
                return  # not a lobby table (a tournament's, or opened directly)
            table = record.table
            if change == "player_seated":
                table = table.confirm(player)
            elif change == "player_left":
                table = table.left(player)
            elif change == "table_closed":
                table = table.close()
            elif change == "hand_end":
                table = table.with_pot(pot, sequence)
            await self._save(record, table)

    async def expire_holds(self) -> list[str]:
        """Release the holds whose time is up (their player was never seated); the players."""
        released: list[str] = []
        now = self._clock()
        for listed in await self._repository.held_tables():
            async with self._lock(listed.table.table_id):
                record = await self.get(listed.table.table_id)
                table, late = record.table.expire(now)
                await self._save(record, table)
                released += late
        return released

    async def _announce(self) -> None:
        async with self._saved:
            self._saved.notify_all()


async def _watch(
    repository: Repository, saved: asyncio.Condition, player: str, table_filter: TableFilter
) -> AsyncGenerator[TableRecord, None]:
    shown: set[str] = set()
    last = 0
    for record in await repository.open_tables():
        last = max(last, record.change)
        if table_filter.shows(record, player):
            shown.add(record.table.table_id)
            yield record
    while True:
        changed = await repository.changed_since(last)
        for record in changed:
            last = max(last, record.change)
            table_id = record.table.table_id
            if table_filter.shows(record, player):
                shown.add(table_id)
                yield record
            elif table_id in shown:
                shown.discard(table_id)
                yield record
        if changed:
            continue
        async with saved:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(saved.wait(), WATCH_POLL_SECONDS)


class _Locks:
    """Each table's own lock while someone uses it: joins at different tables never wait
    for each other."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def of(self, table_id: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(table_id) or (asyncio.Lock(), 0)
        self._locks[table_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[table_id]
            if users == 1:
                del self._locks[table_id]
            else:
                self._locks[table_id] = (lock, users - 1)
