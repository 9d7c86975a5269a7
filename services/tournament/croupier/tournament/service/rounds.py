"""The rounds of running tournaments, played on the table host (architecture §8): the
director seats each round's table, reads its result from `croupier.table.events`, settles
it through the points core, offers and sells rebuys, raises levels, balances the tables,
and pays the prizes when one player holds every chip (rules 2, 9-19, 33-42, 47).

Crash safety: each decision is saved (the record and its core actions) before the table
host is asked to act on it, and every request to the host and the wallet may be repeated
(a round's table is opened by the round's id; a rebuy's and the prizes' wallet keys derive
from the tournament, the player and the purpose). A restarted director advances every
running tournament (`advance_running`): it drives the saved rounds' tables again (nothing
changes the second time), then reads the results it has not applied (a result for a round
no longer running changes nothing).
"""

from __future__ import annotations

import logging
from dataclasses import replace

from croupier.game import RuleBroken
from croupier.game.limits import echo
from croupier.tournament.adapters import metrics
from croupier.tournament.core.actions import Rebuy
from croupier.tournament.core.errors import NotAllowed, Refused
from croupier.tournament.core.ranking import ranking
from croupier.tournament.core.state import Tournament, entrant, rebuy_refusal
from croupier.tournament.service.coupon_awards import award_coupons
from croupier.tournament.service.crash import void_unreadable
from croupier.tournament.service.events import Finished, RoundHosted
from croupier.tournament.service.model import (
    HostedRound,
    RebuyOffer,
    Status,
    TournamentRecord,
)
from croupier.tournament.service.plan import (
    RoundResult,
    announcements,
    apply_all,
    levels_due,
    next_rounds,
    offers_for,
    prizes_won,
    result_action,
    round_table,
)
from croupier.tournament.service.poker_play import PokerPlay
from croupier.tournament.service.ports import TableHost, Unreadable, Wallet
from croupier.tournament.service.store import Store

__all__ = ["Rounds"]

_log = logging.getLogger(__name__)


def _replayed(record: TournamentRecord) -> Tournament:
    state = record.standings()
    assert state is not None, "a running tournament has its points state"
    return state


class Rounds:
    def __init__(
        self, *, store: Store, wallet: Wallet, tables: TableHost, poker: PokerPlay
    ) -> None:
        self._store = store
        self._poker = poker
        """Poker tournaments' hands: `advance` hands them over."""
        self._wallet = wallet
        self._tables = tables
        self._by_table: dict[str, str] = {}
        """The host's table id → the tournament whose round it plays."""
        self._states: dict[str, tuple[int, Tournament]] = {}
        """Each tournament's points state after its first n saved actions: replaying them
        all on every round's end would grow with the tournament (benchmarks/
        rummy_tournament)."""

    def _state(self, record: TournamentRecord) -> Tournament:
        """The points state of a running tournament loaded from the store: the one
        remembered with the actions saved since applied, else every action replayed.
        Actions are only appended, each save under the record's next version, so the
        first n actions of a record once loaded are those of every later one."""
        known = self._states.get(record.tournament_id)
        try:
            if known is None or known[0] > len(record.actions):
                state = _replayed(record)
            else:
                state, _ = apply_all(known[1], record.actions[known[0] :])
        except RuleBroken as refused:  # saved actions the core refuses: unreadable
            settings = record.settings
            raise Unreadable(
                record.tournament_id,
                record.status.value,
                (settings.game, settings.currency),
                f"its actions do not replay: {refused.message}",
            ) from refused
        self._states[record.tournament_id] = (len(record.actions), state)
        return state

    async def advance_running(self) -> None:
        """Advance every running tournament: after a (re)start, its saved rounds' tables
        are driven again; on the scheduler's ticks, what the clock made due (levels,
        rebuy offers running out)."""
        first_failure: Exception | None = None
        for tournament_id in await self._store.repository.running():
            try:
                await self.advance(tournament_id)
            except Unreadable as unreadable:  # it cannot continue: voided and refunded
                await void_unreadable(self._store, self._wallet, unreadable)
            except Exception as failure:  # noqa: BLE001 - the others advance all the same
                _log.warning("tournament %s did not advance: %r", tournament_id, failure)
                first_failure = first_failure or failure
        if first_failure is not None:
            raise first_failure  # for the caller's retry, once every tournament was tried

    async def advance(self, tournament_id: str) -> None:
        """Raise the levels due, close the offers that ran out; then pay the prizes of a
        finished tournament, or start the next rounds when no offer is open; then have
        the host play every saved round it has not opened yet. A poker tournament's hands
        are `PokerPlay.advance`'s."""
        if await self._advance(tournament_id) == "poker":
            await self._poker.advance(tournament_id)

    async def _advance(self, tournament_id: str) -> str:
        """`advance` for rummy; "poker" when the tournament is poker's, untouched."""
        async with self._store.lock(tournament_id):
            record = await self._store.load(tournament_id)
            if record.settings.poker is not None:
                return "poker"
            if record.status is not Status.RUNNING:
                return "rummy"
            state = self._state(record)
            now = self._store.clock()
            raised = levels_due(record, state, now)
            state, events = apply_all(state, raised)
            offers = tuple(
                offer
                for offer in record.offers
                if offer.until > now and rebuy_refusal(state, offer.player) is None
            )
            changed = bool(raised) or offers != record.offers
            record = replace(record, actions=record.actions + tuple(raised), offers=offers)
            if state.finished:
                await self._finish(record, state)
                return "rummy"
            if not offers:
                seats, starts = next_rounds(record, state)
                state, started = apply_all(state, starts)
                events += started
                hosted = tuple(HostedRound(start.round_id) for start in starts)
                changed = changed or bool(starts) or seats != record.seats
                record = replace(
                    record,
                    seats=seats,
                    actions=record.actions + tuple(starts),
                    hosted=record.hosted + hosted,
                )
            if changed:
                record = await self._store.save(record, *announcements(state, events))
            await self._host(record, state)
            return "rummy"

    async def _host(self, record: TournamentRecord, state: Tournament) -> None:
        """Have the host play the saved rounds; remember their tables."""
        for hosted in record.hosted:
            if hosted.table_id:
                self._by_table[hosted.table_id] = record.tournament_id
        opened: dict[str, str] = {}
        for hosted in record.hosted:
            if not hosted.table_id:
                table_id = await self._tables.play_round(
                    round_table(record, state, hosted.round_id)
                )
                self._by_table[table_id] = record.tournament_id
                opened[hosted.round_id] = table_id
        if opened:
            await self._store.save(
                replace(
                    record,
                    hosted=tuple(
                        replace(h, table_id=opened[h.round_id]) if h.round_id in opened else h
                        for h in record.hosted
                    ),
                ),
                *(RoundHosted(round_id, table_id) for round_id, table_id in opened.items()),
            )

    async def round_ended(self, result: RoundResult) -> None:
        """A table's round is over: settle it through the core (rules 20-23, 33; OQ 24),
        open the rebuy offers of the players it eliminated (rule 17), then go on."""
        tournament_id = await self._tournament_of(result.table_id)
        if tournament_id is None:
            return  # not a tournament's round, or one settled already
        async with self._store.lock(tournament_id):
            record = await self._store.load(tournament_id)
            hosted = next((h for h in record.hosted if h.table_id == result.table_id), None)
            if hosted is None or record.status is not Status.RUNNING:
                return
            state = self._state(record)
            action = result_action(hosted.round_id, result)
            try:
                state, events = apply_all(state, [action])
            except Refused as refusal:  # the host's result does not fit the round: a bug
                _log.error("round %s: result refused: %s", hosted.round_id, refusal.message)
                return
            offers = offers_for(record, state, events, self._store.clock())
            await self._store.save(
                replace(
                    record,
                    actions=(*record.actions, action),
                    hosted=tuple(h for h in record.hosted if h is not hosted),
                    offers=offers,
                ),
                *announcements(state, events, offers),
            )
        self._by_table.pop(result.table_id, None)
        await self.advance(tournament_id)

    async def _tournament_of(self, table_id: str) -> str | None:
        """The running tournament whose round `table_id` plays: remembered, else looked
        for (another director opened it, e.g. before this one restarted)."""
        known = self._by_table.get(table_id)
        if known is not None:
            return known
        for tournament_id in await self._store.repository.running():
            record = await self._store.load(tournament_id)
            if any(hosted.table_id == table_id for hosted in record.hosted):
                return tournament_id
        return None

    async def rebuy(self, tournament_id: str, player: str, accept: bool) -> int:
        """Rules 11-17, OQ 2, 3, 6: accept (the wallet takes the price into the prize
        pool) or decline an offer; accepted, the chips credited (the starting stack)."""
        async with self._store.lock(tournament_id):
            record = await self._store.load(tournament_id)
            if record.settings.poker is not None:
                raise NotAllowed(
                    "no_rebuys", "a poker tournament has no rebuys: an eliminated player re-enters"
                )
            if record.status is not Status.RUNNING:
                raise NotAllowed(
                    "no_rebuy_offer",
                    f"{echo(player)} has no rebuy offer: the tournament is not running",
                )
            state = self._state(record)
            player_state = entrant(state, player)
            now = self._store.clock()
            offer = next((o for o in record.offers if o.player == player and o.until > now), None)
            if player_state.out is not None and offer is None:
                # The rule that kept the offer away (the count, the level, the final
                # table), else the window that ran out.
                raise rebuy_refusal(state, player) or NotAllowed(
                    "rebuy_window_closed", f"{echo(player)} has no rebuy offer open now"
                )
            offers = tuple(o for o in record.offers if o is not offer)
            if not accept:
                if offer is None:
                    raise NotAllowed("no_rebuy_offer", f"{echo(player)} has no offer to decline")
                await self._store.save(replace(record, offers=offers))
                chips = 0
            else:
                chips = await self._buy(record, state, player, offers)
        await self.advance(tournament_id)
        return chips

    async def _buy(
        self,
        record: TournamentRecord,
        state: Tournament,
        player: str,
        offers: tuple[RebuyOffer, ...],
    ) -> int:
        refusal = rebuy_refusal(state, player)
        if refusal is not None:
            raise refusal
        terms = record.settings.rebuys
        assert terms is not None  # rebuy_refusal refuses a tournament without rebuys
        number = state.entrants[player].rebuys + 1
        settings = record.settings
        await self._wallet.enter(
            entry_id=f"{record.tournament_id}:{player}:rebuy-{number}",
            tournament_id=record.tournament_id,
            game=settings.game,
            player=player,
            currency=settings.currency,
            buy_in=terms.price,
            fee=terms.fee,
            rebuy=True,
        )
        state, events = apply_all(state, [Rebuy(player)])
        await self._store.save(
            replace(record, actions=(*record.actions, Rebuy(player)), offers=offers),
            *announcements(state, events),
        )
        return settings.starting_chips

    async def _finish(self, record: TournamentRecord, state: Tournament) -> None:
        """Rule 47: the prizes of the payout table for the entrants, places shared as the
        ranking says (rule 40, OQ 18), paid in one batch that empties the pool."""
        settings = record.settings
        won = prizes_won(record, state)
        assert won is not None  # the tournament is over
        await self._wallet.pay_prizes(
            payout_id=f"{record.tournament_id}:prizes",
            tournament_id=record.tournament_id,
            game=settings.game,
            currency=settings.currency,
            prizes={player: amount for player, amount in won.items() if amount},
        )
        places = ranking(state, disqualified=False)  # no coupon for the disqualified
        await award_coupons(self._wallet, record, places, self._store.clock())
        (winner,) = (p.name for p in state.entrants.values() if p.out is None)
        paid = tuple(sorted((player, amount) for player, amount in won.items() if amount))
        await self._store.save(
            replace(record, status=Status.FINISHED, offers=()), Finished(winner, paid)
        )
        self._states.pop(record.tournament_id, None)
        metrics.FINISHED.labels(settings.game).inc()
