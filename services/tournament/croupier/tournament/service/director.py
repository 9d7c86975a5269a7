"""The director's use cases: create, cancel, register, unregister, start or cancel at the
start time, void; once started, the rounds (`rounds.Rounds`: played on the table host,
rebuys, levels, balancing, prizes).

Each use case reads the record, checks the rules, moves money through the wallet (every
call idempotent by a key derived from the tournament and the player), then saves the next
record with its events. A crash between the wallet call and the save is healed by the
retry: the wallet answers the same key as already done. One tournament's use cases run
one at a time in this process (`store.Store`'s lock per tournament); replicas are kept
apart by the record's version (`Conflict`).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncGenerator
from dataclasses import replace
from datetime import datetime

from croupier.game import Duplicate
from croupier.game.fairness import commitment
from croupier.game.limits import echo
from croupier.tournament.adapters import metrics
from croupier.tournament.core import spin
from croupier.tournament.core.errors import InvalidInput, NotAllowed, NotFound
from croupier.tournament.core.poker_entries import registration_refusal
from croupier.tournament.core.seating import check_seed, initial_seating
from croupier.tournament.service.crash import UNREADABLE_REASON, void_unreadable
from croupier.tournament.service.disqualify import disqualify
from croupier.tournament.service.events import (
    Cancelled,
    Created,
    Recorded,
    Registered,
    Started,
    Unregistered,
    Voided,
)
from croupier.tournament.service.listing import list_page
from croupier.tournament.service.model import (
    Entry,
    SeatAt,
    Settings,
    Status,
    TournamentRecord,
    check_text,
)
from croupier.tournament.service.plan import RoundResult
from croupier.tournament.service.poker_model import epoch
from croupier.tournament.service.poker_play import HandResult, PokerPlay
from croupier.tournament.service.ports import (
    Clock,
    Repository,
    Seeds,
    TableHost,
    Unreadable,
    Wallet,
)
from croupier.tournament.service.rounds import Rounds
from croupier.tournament.service.store import Store

__all__ = ["BELOW_MIN_PLAYERS", "Director"]

BELOW_MIN_PLAYERS = "below_min_players"
_ID_NAMESPACE = uuid.UUID("6f0b7a52-2f43-4c7e-9a51-1c0de7a1e000")


def _check_player(player: str) -> str:
    if not player or len(player) > 100 or not player.replace("-", "").replace("_", "").isalnum():
        raise InvalidInput(
            "invalid_player", f"player_id {echo(player)} must be 1-100 letters, digits, - or _"
        )
    return player


_COUPON_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,199}")


def _check_coupon(coupon_id: str) -> str:
    """The wallet's id shape, checked here so that a bad id is never logged or sent on."""
    if coupon_id and not _COUPON_ID.fullmatch(coupon_id):
        raise InvalidInput(
            "invalid_coupon",
            f"coupon_id {echo(coupon_id)} must be 1-200 letters, digits or ._:/@+- starting "
            "with a letter or digit (or empty: pay the entry in money)",
        )
    return coupon_id


def _check_coupon_accepted(record: TournamentRecord) -> None:
    """Rule 48: a coupon pays an entry where the tournament says so, and only a
    registration before the start (a late entry or a re-entry pays money)."""
    if not record.settings.coupons_accepted:
        raise NotAllowed(
            "coupons_not_accepted",
            "this tournament does not take coupons: register without one to pay in money",
        )
    if record.status is not Status.REGISTERING:
        raise NotAllowed(
            "coupon_after_start",
            "a coupon pays a registration before the start only: register without one to enter now",
        )


class Director:
    def __init__(
        self,
        *,
        repository: Repository,
        wallet: Wallet,
        tables: TableHost,
        clock: Clock,
        seeds: Seeds,
    ):
        self._repository = repository
        self._wallet = wallet
        self._clock = clock
        self._seeds = seeds
        self._store = Store(repository, clock)
        self._lock = self._store.lock
        self._load = self._store.load
        self._save = self._store.save
        self.poker = PokerPlay(store=self._store, wallet=wallet, tables=tables)
        self.rounds = Rounds(store=self._store, wallet=wallet, tables=tables, poker=self.poker)

    # --- use cases ----------------------------------------------------------------------

    async def create(
        self, request_key: str, settings: Settings, seed: bytes = b""
    ) -> tuple[str, bool]:
        """Schedule a tournament; the id and whether `request_key` had created it already.
        `seed`: the tournament's (a replay's), else a fresh one; its draws derive from it."""
        if not 1 <= len(request_key) <= 200:
            raise InvalidInput("invalid_request_key", "request_key must have 1-200 characters")
        settings.check()
        seed = check_seed(seed) if seed else self._seeds()
        tournament_id = "t-" + uuid.uuid5(_ID_NAMESPACE, request_key).hex
        record = TournamentRecord(
            tournament_id, request_key, settings, seating_seed=seed, events=1, version=1
        )
        stored, created = await self._repository.create(
            record,
            Recorded(tournament_id, 1, self._clock(), Created(settings, commitment(seed))),
        )
        if stored.settings != settings:
            raise Duplicate(
                f"request_key {echo(request_key)} created a tournament with other settings",
                "request_key_reused",
            )
        return stored.tournament_id, not created

    async def register(
        self, tournament_id: str, player: str, coupon_id: str = "", *, bot: bool = False
    ) -> str:
        """Rules 3-6, OQ 1: before the start, below the maximum, once; returns the entry id.
        Poker (`core.poker_entries`): a scheduled tournament's late registration and
        re-entry after the start (`PokerPlay.enter`); a Sit & Go or a Spin starts when
        this entry fills it. `bot`: the bots service registers a bot (rule 59), which the
        poker core refuses unless the tournament takes bots."""
        _check_player(player)
        _check_coupon(coupon_id)
        async with self._lock(tournament_id):
            record = await self._load(tournament_id)
            terms = record.settings.poker
            entry_id = record.next_entry_id(player)
            if bot and (terms is None or record.status is not Status.REGISTERING):
                raise NotAllowed("bots_not_allowed", "this tournament does not take bots")
            if coupon_id:
                _check_coupon_accepted(record)
            if terms is not None and record.status is Status.RUNNING:
                await self.poker.enter(record, player, entry_id)
                full = False
            else:
                self._check_before_start(record, "register")
                registered = record.players()  # read once: 2,000 entries make it dear
                self._check_room(record, registered, player, bot)
                await self._enter(record, player, entry_id, bot, coupon_id)
                full = len(registered) + 1 >= record.settings.max_players
        if terms is not None and terms.starts_when_full and full:
            await self.start_or_cancel(tournament_id)
        if terms is not None:
            await self.rounds.advance(tournament_id)  # the hands the entry lets deal
        return entry_id

    async def _enter(
        self,
        record: TournamentRecord,
        player: str,
        entry_id: str,
        bot: bool,
        coupon_id: str = "",
    ) -> None:
        """Pay the entry (money, or `coupon_id`: the player's coupon, redeemed by the
        wallet, whose prize fund pays the buy-in into the pool, the fee waived) and
        record it."""
        settings = record.settings
        await self._wallet.enter(
            entry_id=entry_id,
            tournament_id=record.tournament_id,
            game=settings.game,
            player=player,
            currency=settings.currency,
            buy_in=settings.buy_in,
            fee=settings.fee,
            prize_pool=await self._spin_pool(record),
            coupon_id=coupon_id,
        )
        entries = (*record.entries, Entry(player, entry_id, bot=bot))
        await self._save(replace(record, entries=entries), Registered(player, entry_id, bot))

    async def _spin_pool(self, record: TournamentRecord) -> int | None:
        """For the entry that fills a Spin: its prizes (rule 53, drawn from the seed the
        start reveals), which the wallet's prize fund brings the pool to with this entry
        (`Wallet.enter`). Refused first unless the fund could pay the table's largest
        multiplier: asked whatever the draw, a refusal tells nothing of it."""
        settings = record.settings
        terms = settings.poker
        if terms is None or terms.kind != "spin":
            return None
        if len(record.players()) + 1 < settings.max_players:
            return None
        config = settings.poker_config
        needed = spin.fund_needed(config.spin_table, config.buy_in)
        if (
            needed
            and await self._wallet.prize_fund(game=settings.game, currency=settings.currency)
            < needed
        ):
            raise NotAllowed(
                "prize_fund_short",
                "this Spin cannot start yet: the house's prize fund cannot cover its largest "
                "prize; nothing was charged, try again later",
            )
        row = spin.draw_multiplier(config.spin_table, record.seating_seed)
        return sum(spin.prizes(row, config.buy_in))

    def _check_room(
        self, record: TournamentRecord, registered: tuple[str, ...], player: str, bot: bool
    ) -> None:
        """`player` may join the `registered` players (refused: already there, full, a
        bot where bots may not play)."""
        terms = record.settings.poker
        if terms is not None:  # the poker core's rules (full, registered, bots: rule 59)
            config = record.settings.poker_config
            now = epoch(self._clock())
            refusal = registration_refusal(config, registered, player, now, bot=bot)
            if refusal is not None:
                raise refusal
            return
        if player in registered:
            raise Duplicate(f"{echo(player)} is already registered", "already_registered")
        if len(registered) >= record.settings.max_players:
            raise NotAllowed(
                "tournament_full",
                f"the tournament is full ({record.settings.max_players} players)",
            )

    async def listed(
        self, statuses: frozenset[Status], page_size: int, page_token: str
    ) -> tuple[list[TournamentRecord], str]:
        """A page of the tournaments in `statuses` (`service.listing`)."""
        return await list_page(self._repository, statuses, page_size, page_token)

    async def unregister(self, tournament_id: str, player: str) -> None:
        """Rule 5: before the start, with the buy-in and fee refunded; refused after."""
        async with self._lock(tournament_id):
            record = await self._load(tournament_id)
            self._check_before_start(record, "unregister")
            entry = record.entry_of(player)
            if entry is None:
                raise NotFound("not_registered", f"{echo(player)} is not registered")
            await self._wallet.refund_entry(
                entry_id=entry.entry_id, refund_id=f"{entry.entry_id}:refund"
            )
            entries = record.with_refunds(frozenset({player}))
            await self._save(replace(record, entries=entries), Unregistered(player))

    async def cancel(self, tournament_id: str, reason: str) -> int:
        """An operator cancels before the start: every entry refunded; how many."""
        check_text(reason, "reason")
        async with self._lock(tournament_id):
            record = await self._load(tournament_id)
            if record.status is not Status.REGISTERING:
                raise NotAllowed(
                    "not_registering",
                    f"only a tournament not started can be cancelled; this one is "
                    f"{record.status.value}",
                )
            return await self._cancel(record, reason or "cancelled by an operator")

    async def _cancel(self, record: TournamentRecord, reason: str) -> int:
        players = record.players()
        for player in players:
            entry = record.entry_of(player)
            assert entry is not None
            await self._wallet.refund_entry(
                entry_id=entry.entry_id, refund_id=f"{entry.entry_id}:refund"
            )
        entries = record.with_refunds(frozenset(players))
        await self._save(
            replace(record, status=Status.CANCELLED, entries=entries), Cancelled(reason, players)
        )
        return len(players)

    async def start_due(self) -> list[str]:
        """Rule 1: start every tournament whose time has come (its first rounds on the
        table host), or cancel it below its minimum with full refunds; the ids handled."""
        handled = await self._repository.due(self._clock())
        for tournament_id in handled:
            if await self.start_or_cancel(tournament_id) is Status.RUNNING:
                await self.rounds.advance(tournament_id)
        return handled

    async def start_or_cancel(self, tournament_id: str) -> Status:
        async with self._lock(tournament_id):
            record = await self._load(tournament_id)
            if record.status is not Status.REGISTERING:
                return record.status
            players = record.players()
            terms = record.settings.poker
            # A Sit & Go or a Spin not full by its start time never starts (rules 52, 53).
            least = record.settings.max_players if terms and terms.starts_when_full else 0
            if len(players) < max(least, record.settings.min_players):
                await self._cancel(record, BELOW_MIN_PLAYERS)
                return Status.CANCELLED
            # A tournament created before seeds were drawn at creation has none.
            seed = record.seating_seed or self._seeds()
            running = replace(record, status=Status.RUNNING, seating_seed=seed)
            if terms is not None:  # the poker core seats, draws a Spin, deals
                running, announced = self.poker.start(running, players)
            else:
                seating = initial_seating(players, record.settings.table_size, seed)
                running = replace(
                    running,
                    seats=tuple(
                        SeatAt(table.number, seat, player)
                        for table in seating.tables
                        for seat, player in table.seats
                    ),
                )
                announced = []
            started = Started(running.seats, seed, record.settings.starting_chips)
            await self._save(running, started, *announced)
            return Status.RUNNING

    async def void(self, tournament_id: str, reason: str) -> int:
        """Rule 44, OQ 28: void a tournament not over and refund its money; how many refunds."""
        check_text(reason, "reason")
        async with self._lock(tournament_id):
            try:
                record = await self._load(tournament_id)
            except Unreadable as unreadable:  # voided all the same (service.crash)
                return await void_unreadable(
                    self._store, self._wallet, unreadable, reason or UNREADABLE_REASON
                )
            if record.status not in (Status.REGISTERING, Status.RUNNING):
                raise NotAllowed(
                    "not_voidable", f"the tournament is {record.status.value}, nothing to void"
                )
            settings = record.settings
            refunds = await self._wallet.refund_crashed(
                tournament_id=tournament_id, game=settings.game, currency=settings.currency
            )
            voided = replace(record, status=Status.VOIDED, offers=())
            await self._save(voided, Voided(reason or "voided by an operator"))
            metrics.CRASH_REFUNDS.labels(settings.game).inc()
            return refunds

    async def disqualify(self, tournament_id: str, player: str, reason: str) -> None:
        """Rule 49, an operator's call (`service.disqualify`)."""
        await disqualify(self._store, self.rounds, tournament_id, player, reason)

    async def answer_rebuy(self, tournament_id: str, player: str, accept: bool) -> int:
        """Rules 11-17: accept or decline a rebuy (`Rounds.rebuy`); the chips credited."""
        record = await self._load(tournament_id)
        if record.entry_of(player) is None:
            raise NotFound("not_registered", f"{echo(player)} is not registered")
        return await self.rounds.rebuy(tournament_id, player, accept)

    async def round_ended(self, result: RoundResult) -> None:
        """A round's result from the table host (`entrypoints.table_events`)."""
        await self.rounds.round_ended(result)

    async def hand_ended(self, result: HandResult) -> None:
        """A poker hand's result from the table host (`entrypoints.table_events`)."""
        await self.poker.hand_ended(result)

    async def get(self, tournament_id: str) -> TournamentRecord:
        return await self._load(tournament_id)

    def watch(self, tournament_id: str, after: int) -> AsyncGenerator[Recorded, None]:
        """The events numbered above `after`, then each new one as it is saved."""
        return self._store.watch(tournament_id, after)

    def _check_before_start(self, record: TournamentRecord, what: str) -> None:
        now: datetime = self._clock()
        if record.status is not Status.REGISTERING or now >= record.settings.start_time:
            raise NotAllowed(
                "registration_closed",
                f"cannot {what}: the tournament has started or is over ({record.status.value})",
            )
