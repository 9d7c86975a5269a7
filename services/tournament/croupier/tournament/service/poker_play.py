"""The hands of running poker tournaments, played on the table host (issue 25, rules 52-55):
the poker core (`core.poker_tournament`) decides, this carries its decisions out.

Each hand is a table of its own, like a rummy round: a `Deal` becomes a `HostedHand`
(its players in the host's seat order, rotated so that the core's big blind is the host's,
with their chips and the level's blinds and ante; a dead small blind, when the dead button
rule made one, is the host table's too), saved with the input that caused it
before the host is asked to open it (request key: the hand's id). The host publishes the
hand's end on `croupier.table.events` (`hand_ended`, with the stacks); the director gives
the core `HandDone` with the stacks of the players dealt in, and carries out what follows:
busts (announced `eliminated`), levels, moves and broken tables (the seats), the next
deals, and at the end the prizes, paid in one `PayTournamentPrizes` batch.

Crash safety as the rounds': each input is saved before anything acts on it, and the
host's and the wallet's calls are repeatable (the hand's id, the prizes' key); a result
for a hand no longer in play changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from itertools import accumulate
from operator import attrgetter

from croupier.game.fairness import commitment
from croupier.tournament.adapters import metrics
from croupier.tournament.core.blinds import to_table_config_fields
from croupier.tournament.core.errors import Refused
from croupier.tournament.core.poker_decisions import (
    BreakStarted,
    Busted,
    Deal,
    Finished,
    HandForHand,
    LevelStarted,
    SpinDrawn,
)
from croupier.tournament.core.poker_entries import entry_refusal
from croupier.tournament.core.poker_tournament import PokerTournament, Step, tick
from croupier.tournament.service import events
from croupier.tournament.service.coupon_awards import award_coupons
from croupier.tournament.service.model import Entry, SeatAt, Status, TournamentRecord
from croupier.tournament.service.poker_model import (
    HandDone,
    HostedHand,
    LateEntry,
    PokerInput,
    Start,
    Tick,
    apply_input,
    epoch,
    replay,
)
from croupier.tournament.service.ports import HandTable, TableHost, Wallet
from croupier.tournament.service.store import Store

__all__ = ["HandResult", "PokerPlay", "all_seats", "poker_state", "seats_after"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class HandResult:
    """A hand's end as the table host announced it: each player's chips at its end."""

    table_id: str
    stacks: Mapping[str, int]


def poker_state(record: TournamentRecord) -> PokerTournament | None:
    """The poker core's state from the record's inputs (None before the start)."""
    return replay(record.settings.poker_config, record.seating_seed, record.poker_inputs)


def _dead_small_blind(deal: Deal) -> bool:
    """The dead button rule left nobody dealt in on the small blind's seat (heads-up the
    button posts it: never dead)."""
    return len(deal.players) > 2 and deal.blinds.small_blind not in deal.seats


def _host_order(deal: Deal) -> tuple[str, ...]:
    """The dealt players from the host's seat 0 on: the host gives a fresh table's button
    to seat 0, then the small blind, then the big blind (heads-up seat 0 posts the small
    blind; with a dead small blind seat 1 has the big blind), so the order is turned until
    the core's big blind falls where the host's is. The host's button is then the core's,
    or when the core's is dead (nobody on its seat), the player before it, which orders
    the betting and the odd chips as the dead seat does."""
    big = deal.seats.index(deal.blinds.big_blind)
    count = len(deal.players)
    offset = 1 if count == 2 or _dead_small_blind(deal) else 2
    return tuple(deal.players[(big - offset + i) % count] for i in range(count))


def seats_after(
    seats: tuple[SeatAt, ...], before: PokerTournament | None, after: PokerTournament
) -> tuple[SeatAt, ...]:
    """A record's `seats` (`before`'s) after a step to `after`: a hand moves nobody at
    most tables, so their seats are kept as they were (thousands of seats are not
    rebuilt after every hand; a table the step left alone is the same object); all
    rebuilt when `seats` do not follow `before`'s tables."""
    if before is None or len(before.tables) != len(after.tables):
        return all_seats(after)
    # ends[n]: where `before`'s table n + 1 starts in `seats`, ends[n + 1] where it ends
    # (C loops, not Python's: this runs after every hand, over every table the
    # tournament ever had).
    ends = list(accumulate(map(len, map(attrgetter("seats"), before.tables)), initial=0))
    if len(seats) != ends[-1]:
        return all_seats(after)
    changed = [
        number
        for number, (old, new) in enumerate(zip(before.tables, after.tables, strict=True))
        if old is not new and old.seats != new.seats
    ]
    if not changed:
        return seats
    kept: list[SeatAt] = []
    kept_from = 0
    for number in changed:
        kept.extend(seats[kept_from : ends[number]])
        table = after.tables[number]
        kept.extend(SeatAt(table.number, seat, player) for seat, player in table.seats)
        kept_from = ends[number + 1]
    kept.extend(seats[kept_from:])
    return tuple(kept)


def all_seats(state: PokerTournament) -> tuple[SeatAt, ...]:
    """Every seat of `state`'s tables, table by table (the record's `seats`)."""
    return tuple(
        SeatAt(table.number, seat, player) for table in state.tables for seat, player in table.seats
    )


def carry_out(
    record: TournamentRecord,
    given: PokerInput,
    step: Step,
    before: PokerTournament | None = None,
) -> tuple[TournamentRecord, list[events.Event], Finished | None]:
    """The record with `given` and its decisions applied, what to announce, and the end;
    `before`: the state the step started from (None: at the start)."""
    state = step.state
    announced: list[events.Event] = []
    hands = list(record.hands)
    finished = None
    for decision in step.decisions:
        match decision:
            case SpinDrawn(row, prizes):
                seed = record.seating_seed
                announced.append(events.SpinDrawn(row.multiplier, prizes, commitment(seed), seed))
            case Busted(places):
                announced.extend(
                    events.PlayerEliminated(player, None)
                    for place in places
                    for player in place.players
                )
            case LevelStarted(index, _) if index > 0:
                announced.append(events.LevelRaised(index + 1, ()))
            case HandForHand(on):
                announced.append(events.HandForHand(on))
            case BreakStarted(seconds):
                announced.append(events.BreakStarted(seconds))
            case Deal(table, _, _, level):
                players = _host_order(decision)
                hand_id = f"{record.tournament_id}:hand-{len(record.poker_inputs)}-{table}"
                stacks = tuple((p, state.chips[p]) for p in players)
                dead = _dead_small_blind(decision)
                hands.append(HostedHand(hand_id, table, stacks, level, dead_small_blind=dead))
            case Finished():
                finished = decision
    changed = replace(
        record,
        poker_inputs=(*record.poker_inputs, given),
        seats=seats_after(record.seats, before, state),
        hands=tuple(hands),
    )
    return changed, announced, finished


class PokerPlay:
    def __init__(self, *, store: Store, wallet: Wallet, tables: TableHost) -> None:
        self._store = store
        self._wallet = wallet
        self._tables = tables
        self._by_table: dict[str, str] = {}
        """The host's table id → the tournament whose hand it plays."""
        self._states: dict[str, tuple[int, PokerTournament]] = {}
        """Each tournament's core state after its first n saved inputs: replaying them all
        on every hand and tick would grow with the tournament. Inputs are only appended,
        under the record's version, so n names one history; set only once saved."""

    def _state(self, record: TournamentRecord) -> PokerTournament:
        """The core's state of a running tournament: remembered, else replayed."""
        known = self._states.get(record.tournament_id)
        if known is not None and known[0] == len(record.poker_inputs):
            return known[1]
        state = poker_state(record)
        assert state is not None, "a running poker tournament has started"
        self._states[record.tournament_id] = (len(record.poker_inputs), state)
        return state

    def start(
        self, record: TournamentRecord, players: tuple[str, ...]
    ) -> tuple[TournamentRecord, list[events.Event]]:
        """The start (rules 7, 52-54): the core's seating, a Spin's draw, the first deals.
        The caller saves the record (with `Started` first) under the tournament's lock."""
        given = Start(players, epoch(self._store.clock()))
        step = apply_input(record.settings.poker_config, record.seating_seed, None, given)
        changed, announced, _ = carry_out(record, given, step)
        return changed, announced

    async def enter(self, record: TournamentRecord, player: str, entry_id: str) -> None:
        """A late entry or re-entry (rule 54), under the caller's lock: refused by the core's
        rules before the wallet takes the entry; then seated by the core."""
        state = self._state(record)
        now = epoch(self._store.clock())
        refusal = entry_refusal(state, player, now)
        if refusal is not None:
            raise refusal
        settings = record.settings
        await self._wallet.enter(
            entry_id=entry_id,
            tournament_id=record.tournament_id,
            game=settings.game,
            player=player,
            currency=settings.currency,
            buy_in=settings.buy_in,
            fee=settings.fee,
        )
        given = LateEntry(player, now)
        step = apply_input(state.config, record.seating_seed, state, given)
        changed, announced, _ = carry_out(record, given, step, state)
        entries = (*changed.entries, Entry(player, entry_id))
        await self._store.save(
            replace(changed, entries=entries), events.Registered(player, entry_id), *announced
        )
        self._states[record.tournament_id] = (len(changed.poker_inputs), step.state)

    async def advance(self, tournament_id: str) -> None:
        """What the clock made due (levels, breaks ending), then have the host play every
        saved hand it has not opened yet."""
        async with self._store.lock(tournament_id):
            record = await self._store.load(tournament_id)
            if record.status is not Status.RUNNING:
                return
            state = self._state(record)
            now = epoch(self._store.clock())
            step = tick(state, now)
            if step.decisions:
                record = await self._apply(record, Tick(now), step, state)
            await self._host(record)

    async def _apply(
        self, record: TournamentRecord, given: PokerInput, step: Step, before: PokerTournament
    ) -> TournamentRecord:
        changed, announced, finished = carry_out(record, given, step, before)
        if finished is not None:
            self._states.pop(record.tournament_id, None)
            return await self._finish(changed, announced, finished)
        saved = await self._store.save(changed, *announced)
        self._states[record.tournament_id] = (len(saved.poker_inputs), step.state)
        return saved

    async def hand_ended(self, result: HandResult) -> None:
        """A table's hand is over: the core decides what follows (module docstring)."""
        tournament_id = await self._tournament_of(result.table_id)
        if tournament_id is None:
            return  # not a tournament's hand, or one applied already
        async with self._store.lock(tournament_id):
            record = await self._store.load(tournament_id)
            hand = next((h for h in record.hands if h.table_id == result.table_id), None)
            if hand is None or record.status is not Status.RUNNING:
                return
            state = self._state(record)
            before = dict(hand.seats)
            # A player missing from the host's stacks is refused by the core (-1 chips).
            after = {player: result.stacks.get(player, -1) for player in before}
            given = HandDone(
                hand.table,
                tuple(before.items()),
                tuple(after.items()),
                epoch(self._store.clock()),
            )
            try:  # the state's config: settings checked once, at the start
                step = apply_input(state.config, record.seating_seed, state, given)
            except Refused as refusal:  # the host's stacks do not fit the hand: a bug
                _log.error("hand %s: result refused: %s", hand.hand_id, refusal.message)
                return
            record = replace(record, hands=tuple(h for h in record.hands if h is not hand))
            record = await self._apply(record, given, step, state)
            self._by_table.pop(result.table_id, None)
            await self._host(record)

    async def _host(self, record: TournamentRecord) -> None:
        """Have the host play the saved hands; remember their tables."""
        for hand in record.hands:
            if hand.table_id:
                self._by_table[hand.table_id] = record.tournament_id
        opened: dict[str, str] = {}
        settings = record.settings
        terms = settings.poker
        # Only a tournament that allows bots has any (rule 59): the entries are not read
        # for each hand of one that does not.
        bots = record.bots() if terms is not None and terms.bots_allowed else frozenset()
        for hand in record.hands:
            if hand.table_id:
                continue
            table_id = await self._tables.play_hand(
                HandTable(
                    hand_id=hand.hand_id,
                    variant=settings.variant,
                    seats=hand.seats,
                    turn_seconds=settings.turn_seconds,
                    bots=bots & {player for player, _ in hand.seats},
                    dead_small_blind=hand.dead_small_blind,
                    **to_table_config_fields(hand.level),
                )
            )
            self._by_table[table_id] = record.tournament_id
            opened[hand.hand_id] = table_id
        if opened:
            await self._store.save(
                replace(
                    record,
                    hands=tuple(
                        replace(h, table_id=opened[h.hand_id]) if h.hand_id in opened else h
                        for h in record.hands
                    ),
                ),
                *(events.RoundHosted(hand_id, table_id) for hand_id, table_id in opened.items()),
            )

    async def _tournament_of(self, table_id: str) -> str | None:
        known = self._by_table.get(table_id)
        if known is not None:
            return known
        for tournament_id in await self._store.repository.running():
            record = await self._store.load(tournament_id)
            if any(hand.table_id == table_id for hand in record.hands):
                return tournament_id
        return None

    async def _finish(
        self, record: TournamentRecord, announced: list[events.Event], finished: Finished
    ) -> TournamentRecord:
        """The prizes (the core's, places shared as it ranked them) paid in one batch,
        which empties the pool (rule 55: entries and prizes through the wallet)."""
        settings = record.settings
        prizes = {player: amount for player, amount in finished.prizes.items() if amount}
        await self._wallet.pay_prizes(
            payout_id=f"{record.tournament_id}:prizes",
            tournament_id=record.tournament_id,
            game=settings.game,
            currency=settings.currency,
            prizes=prizes,
        )
        await award_coupons(self._wallet, record, finished.places, self._store.clock())
        winner = finished.places[0].players[0]
        saved = await self._store.save(
            replace(record, status=Status.FINISHED, hands=()),
            *announced,
            events.Finished(winner, tuple(sorted(prizes.items()))),
        )
        metrics.FINISHED.labels(settings.game).inc()
        return saved
