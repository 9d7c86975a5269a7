"""Matchmaking tickets: find a game ("a game like this at a stake in this range"), look at
or cancel a ticket, and `process()` (called on the service's interval, by hand in tests).

A pass first seats waiting tickets at compatible open tables: a public table of the same
game and options (its `shape`) and currency, at a stake in the ticket's range, with a
seat free (the free-seat index: the lowest such stake first, then the fullest table).
A ticket with a rating range waits for a match instead (the players at a table are not
rated against it). Then the core matches the others with each other. Both kinds are
saved first (tickets MATCHED, an open table's match named `OPEN_TABLE` + its id), then
each match's table is opened (or, for an open table, read) and its players are seated
through `Tables.join`, so a lobby that dies in between places the match on its next pass,
and a player already seated is not seated twice. A seat at an open table taken meanwhile
puts the ticket back to waiting."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace

from croupier.game import RuleBroken
from croupier.game.limits import check_amount, echo
from croupier.lobby.core.errors import AlreadyThere, InvalidInput, NotAllowed, NotFound
from croupier.lobby.core.matchmaker import MatchmakerSettings, Ticket, counts_for, process
from croupier.lobby.core.policy import check_id, check_player, check_stake_allowed
from croupier.lobby.core.ratings import Rating, RatingRange
from croupier.lobby.core.terms import terms_of, with_stake
from croupier.lobby.service.ports import Clock, Repository
from croupier.lobby.service.ratings import Ratings
from croupier.lobby.service.records import TicketRecord, TicketStatus
from croupier.lobby.service.tables import Tables

__all__ = ["Matchmaking"]

DEFAULT_SETTINGS = MatchmakerSettings()
OPEN_TABLE = "table:"
"""The match id prefix of a ticket placed at an open table (the table id follows)."""
_TAKEN = frozenset({"table_full", "table_closed"})
_ID_NAMESPACE = uuid.UUID("1b0bb7c4-5a3e-4f6e-8d2a-10bb1e5ca7e5")


class Matchmaking:
    def __init__(
        self,
        *,
        repository: Repository,
        tables: Tables,
        clock: Clock,
        settings: MatchmakerSettings = DEFAULT_SETTINGS,
        ratings: Ratings | None = None,
    ) -> None:
        self._repository = repository
        self._ratings = ratings or Ratings(repository)
        self._tables = tables
        self._clock = clock
        self._settings = settings
        self._processing = asyncio.Lock()
        self._tickets = asyncio.Lock()

    async def find(
        self,
        *,
        player: str,
        request_key: str,
        game: str,
        options: Mapping[str, object],
        min_stake: int,
        max_stake: int,
        stack: int = 0,
        rating_range: RatingRange | None = None,
    ) -> TicketRecord:
        """Queue a ticket (one waiting ticket per account); the same key answers it again.
        It carries the account's rating at the game, the opponents' ratings it accepts and
        the accounts of its latest match (not paired again while others wait)."""
        check_player(player)
        check_id(request_key, "request_key")
        check_amount(min_stake, "min_stake")
        check_amount(max_stake, "max_stake")
        check_amount(stack, "stack")
        terms = terms_of(game, with_stake(game, options, min_stake))
        min_count, max_count = counts_for(terms, min_stake, max_stake)
        limits = await self._repository.limits(player)
        check_stake_allowed(player, limits, terms.currency, max_stake)
        rating = await self._ratings.of(player, game)
        avoid = await self._repository.last_opponents(player)
        ticket_id = "tk-" + uuid.uuid5(_ID_NAMESPACE, f"{player}/{request_key}").hex
        async with self._tickets:
            known = await self._repository.ticket(ticket_id)
            if known is not None:
                return known
            waiting = await self._repository.tickets(TicketStatus.WAITING, TicketStatus.MATCHED)
            if any(record.ticket.player == player for record in waiting):
                raise AlreadyThere("already_queued", f"{echo(player)} already has a ticket")
            ticket = Ticket(
                ticket_id=ticket_id,
                player=player,
                game=game,
                shape=terms.shape,
                currency=terms.currency,
                min_stake=min_stake,
                max_stake=max_stake,
                min_count=min_count,
                max_count=max_count,
                created=self._clock(),
                rating=rating.value,
                rating_range=rating_range,
                avoid=avoid,
            )
            options_json = json.dumps(dict(options), sort_keys=True)
            record, _ = await self._repository.add_ticket(
                TicketRecord(ticket, f"{player}/{request_key}", options_json, stack)
            )
            return record

    async def rating(self, player: str, game: str) -> Rating:
        """`player`'s rating at `game`."""
        check_player(player)
        if not game:
            raise InvalidInput("unknown_game", "name the game whose rating is asked")
        return await self._ratings.of(player, game)

    async def get(self, ticket_id: str, player: str) -> TicketRecord:
        record = await self._repository.ticket(check_id(ticket_id, "ticket_id"))
        if record is None or record.ticket.player != player:
            raise NotFound("unknown_ticket", f"no ticket {echo(ticket_id)} of {echo(player)}")
        return record

    async def cancel(self, ticket_id: str, player: str) -> TicketRecord:
        async with self._processing:
            record = await self.get(ticket_id, player)
            if record.status is not TicketStatus.WAITING:
                raise NotAllowed(
                    "ticket_not_waiting", f"the ticket is {record.status.value}, not waiting"
                )
            cancelled = self._next(record, status=TicketStatus.CANCELLED)
            await self._repository.save_tickets([cancelled])
            return cancelled

    @staticmethod
    def _next(record: TicketRecord, **changes: object) -> TicketRecord:
        return replace(record, version=record.version + 1, **changes)  # type: ignore[arg-type]

    async def process(self) -> list[str]:
        """Match the waiting tickets, expire the old ones, place every match not placed
        yet; the tables opened or filled."""
        async with self._processing:
            now = self._clock()
            waiting = await self._repository.tickets(TicketStatus.WAITING)
            at_tables, claimed = await self._at_open_tables(waiting)
            placed = {record.ticket.ticket_id for record in at_tables}
            rest = [record for record in waiting if record.ticket.ticket_id not in placed]
            by_id = {record.ticket.ticket_id: record for record in rest}
            processed = process([r.ticket for r in rest], now, self._settings)
            changed = [*at_tables] + [
                self._next(by_id[t.ticket_id], status=TicketStatus.EXPIRED)
                for t in processed.expired
            ]
            for match in processed.matches:
                changed += [
                    self._next(
                        by_id[t.ticket_id],
                        status=TicketStatus.MATCHED,
                        match_id=match.match_id,
                        stake=match.stake,
                    )
                    for t in match.tickets
                ]
            try:
                await self._repository.save_tickets(changed)
            finally:
                for table_id in claimed:  # the holds `_place` saves count from now
                    self._tables.release_claim(table_id)
            groups: dict[str, list[TicketRecord]] = {}
            for record in await self._repository.tickets(TicketStatus.MATCHED):
                groups.setdefault(record.match_id, []).append(record)
            return [await self._place(match_id, group) for match_id, group in groups.items()]

    async def _at_open_tables(
        self, waiting: Sequence[TicketRecord]
    ) -> tuple[list[TicketRecord], list[str]]:
        """The waiting tickets given a seat at an open table (MATCHED to it), oldest
        first, and the tables whose seats were claimed for them (module docstring)."""
        await self._tables.catch_up()
        stakes: dict[tuple[str, str], list[tuple[int, str]]] = {}
        for key in self._tables.lists_with_seats():
            shape, currency, stake = json.loads(key)
            stakes.setdefault((shape, currency), []).append((stake, key))
        matched: list[TicketRecord] = []
        claimed: list[str] = []
        for record in sorted(waiting, key=lambda r: r.ticket.created):
            ticket = record.ticket
            if ticket.rating_range is not None:
                continue
            lists = sorted(stakes.get((ticket.shape, ticket.currency), []))
            for stake, key in lists:
                if not ticket.min_stake <= stake <= ticket.max_stake:
                    continue
                table_id = await self._free_seat(key, ticket.player)
                if table_id is not None:
                    claimed.append(table_id)
                    matched.append(
                        self._next(
                            record,
                            status=TicketStatus.MATCHED,
                            match_id=OPEN_TABLE + table_id,
                            stake=stake,
                        )
                    )
                    break
        return matched, claimed

    async def _free_seat(self, key: str, player: str) -> str | None:
        """A table of list `key` with a seat claimed for `player`, not one he sits at."""
        passed: set[str] = set()
        while (table_id := self._tables.claim_seat(key, passed)) is not None:
            if not (await self._tables.get(table_id)).table.has(player):
                return table_id
            self._tables.release_claim(table_id)
            passed.add(table_id)
        return None

    async def _place(self, match_id: str, group: Sequence[TicketRecord]) -> str:
        """Open the match's table (once: keyed by the match), or read the open table it
        was given, and seat its players."""
        first = group[0]
        game = first.ticket.game
        if match_id.startswith(OPEN_TABLE):
            record = await self._tables.get(match_id.removeprefix(OPEN_TABLE))
        else:
            options = with_stake(game, json.loads(first.options_json), first.stake)
            record = await self._tables.open_matched(match_id, game, options)
        table_id = record.table.table_id
        for ticket in group:
            player = ticket.ticket.player
            try:
                seated = {p: s for s, p in record.table.seated}
                if player in seated:
                    seat = seated[player]  # seated by a pass that died before saving the ticket
                elif record.table.has(player):
                    # held by a pass that died before the host answered
                    seat, record = await self._tables.finish_hold(table_id, player, ticket.stack)
                else:
                    seat, record = await self._tables.join(table_id, player, ticket.stack)
                placed = self._next(
                    ticket, status=TicketStatus.SEATED, table_id=table_id, seat=seat
                )
            except RuleBroken as refused:
                if match_id.startswith(OPEN_TABLE) and refused.reason in _TAKEN:
                    placed = self._next(ticket, status=TicketStatus.WAITING, match_id="", stake=0)
                else:
                    placed = self._next(
                        ticket,
                        status=TicketStatus.FAILED,
                        table_id=table_id,
                        failure=refused.reason,
                    )
            await self._repository.save_tickets([placed])
        return table_id
