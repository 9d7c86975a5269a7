"""Poker tournaments on the director (issue 25, rules 52-55) with the real table host in
process: each hand a table of its own played by bots, the results read from the bus.
A 6-max Naiko Sit & Go played to the end (chips conserved after every hand, the prizes of
the payout table paid in one batch), a Spin started by its third registration with its
multiplier drawn from the committed seed, and the refusals: registration after late
registration, re-entry without it, an unknown blind structure."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from functools import partial

import pytest

from croupier.game import RuleBroken
from croupier.game.fairness import commitment
from croupier.poker.core.seating import PokerTable
from croupier.tournament.adapters.memory import InMemoryRepository, InMemoryWallet
from croupier.tournament.core.blinds import BlindStructure, Level
from croupier.tournament.core.coupon_prizes import CouponPrize
from croupier.tournament.core.payouts import PayoutBracket
from croupier.tournament.core.spin import PUBLISHED_TABLE, fund_needed, prizes, verify_draw
from croupier.tournament.service import events
from croupier.tournament.service.director import Director
from croupier.tournament.service.model import Settings, Status, TournamentRecord
from croupier.tournament.service.poker_model import PokerTerms
from croupier.tournament.service.poker_play import poker_state
from croupier.tournament.service.views import lobby_view
from tests.support.refusals import status_name
from tests.support.table import Seeds, until
from tests.unit.tournament.director_sample import START, ManualClock, sample_settings
from tests.unit.tournament.hosted import Hosted, hosted_tables
from tests.unit.tournament.poker_hosted import play_hand, poker_tables

FUNDS = 10_000
BUY_IN = 1_000
FEE = 100
STACK = 1_000
PLAYERS = tuple(f"p{n}" for n in range(30))
#: Blinds that rise every minute, with big-blind antes from level 3.
FAST = BlindStructure(
    (
        Level(10, 20, 0, "none", 1),
        Level(25, 50, 0, "none", 1),
        Level(50, 100, 100, "big_blind", 1),
        Level(100, 200, 200, "big_blind", 1),
    )
)
MAX_HANDS = 400


def poker_settings(kind: str = "sit_and_go", **changes: object) -> Settings:
    terms = changes.pop("terms", PokerTerms(kind, levels=FAST))  # type: ignore[arg-type]
    assert isinstance(terms, PokerTerms)
    fields: dict[str, object] = {
        "game": "poker",
        "variant": "naiko",
        "name": "Naiko Sit & Go",
        "min_players": 6,
        "max_players": 6,
        "buy_in": BUY_IN,
        "fee": FEE,
        "starting_chips": STACK,
        "table_size": 6,
        "levels": (),
        "rebuys": None,
        "payouts": (PayoutBracket(2, 100, (6_500, 3_500)),),
        "poker": terms,
    }
    return replace(sample_settings(), **{**fields, **changes})


SPIN = poker_settings(
    "spin", min_players=3, max_players=3, table_size=3, payouts=(), variant="nlhe"
)


@dataclass
class Setup:
    hosted: Hosted
    repository: InMemoryRepository
    wallet: InMemoryWallet
    clock: ManualClock
    director: Director

    def record(self, tid: str) -> TournamentRecord:
        return self.repository.records[tid]

    def events(self, tid: str) -> list[object]:
        return [e.event for e in self.repository.events[tid]]

    async def play_to_the_end(self, tid: str, chips: int) -> int:
        """Bots play every hand until the tournament is over; after each, the director's
        chips add up to `chips` and its tables differ by one player at most. The hands."""
        rng = random.Random(tid)
        for hands in range(MAX_HANDS):
            if self.record(tid).status is Status.FINISHED:
                return hands
            await until(lambda: bool(poker_tables(self.hosted)) or self._over(tid))
            for table_id in poker_tables(self.hosted):
                self.check_positions(tid, table_id)
                await play_hand(self.hosted, table_id, rng)
                await until(partial(self.applied, tid, table_id))
                state = poker_state(self.record(tid))
                assert state is not None
                assert sum(state.chips.values()) == chips
                sizes = [len(t.seats) for t in state.tables if t.seats]
                assert state.hand_for_hand or max(sizes) - min(sizes) <= 1
                # The record's seats (kept from hand to hand) are the core's.
                seats = [(s.table, s.seat, s.player) for s in self.record(tid).seats]
                assert seats == [(t.number, n, p) for t in state.tables for n, p in t.seats]
            self.clock.advance(20)  # the levels rise on the director's clock
        raise AssertionError("the tournament never ended")

    def check_positions(self, tid: str, table_id: str) -> None:
        """The host deals the hand with the core's big blind (and, with three or more,
        its small blind) where the core put them (TDA: the big blind always moves on)."""
        (hand,) = (h for h in self.record(tid).hands if h.table_id == table_id)
        state = poker_state(self.record(tid))
        assert state is not None
        blinds = state.tables[hand.table - 1].blinds
        assert blinds is not None
        seated = dict(state.tables[hand.table - 1].seats)
        dealt: PokerTable = self.hosted.host._table(table_id).state.engine_state
        assert dealt.hand is not None
        ids = dealt.hand.ids
        assert ids[dealt.hand.bb_seat] == seated[blinds.big_blind]
        if len(ids) > 2 and blinds.small_blind in seated:
            assert ids[dealt.hand.sb_seat] == seated[blinds.small_blind]

    def _over(self, tid: str) -> bool:
        return self.record(tid).status is Status.FINISHED

    def applied(self, tid: str, table_id: str) -> bool:
        """The director applied the hand played at `table_id` (or the tournament is over)."""
        return self._over(tid) or all(h.table_id != table_id for h in self.record(tid).hands)


@pytest.fixture
async def setup() -> AsyncIterator[Setup]:
    async with hosted_tables() as hosted:
        repository = InMemoryRepository()
        wallet = InMemoryWallet(balances=dict.fromkeys(PLAYERS, FUNDS))
        clock = ManualClock(START.replace(hour=12))
        seeds = iter(Seeds("poker-director"), None)
        director = Director(
            repository=repository,
            wallet=wallet,
            tables=hosted.tables,
            clock=clock,
            seeds=lambda: next(seeds),
        )
        await hosted.read_results(director)
        yield Setup(hosted, repository, wallet, clock, director)


async def refused(call: object) -> RuleBroken:
    with pytest.raises(RuleBroken) as info:
        await call  # type: ignore[misc]
    return info.value


async def test_rule_52_a_naiko_sit_and_go_starts_when_full_and_plays_to_its_prizes(
    setup: Setup,
) -> None:
    tid, _ = await setup.director.create("sng", poker_settings())
    for player in PLAYERS[:5]:
        await setup.director.register(tid, player)
    assert setup.record(tid).status is Status.REGISTERING
    await setup.director.register(tid, PLAYERS[5])  # the last seat starts it
    assert setup.record(tid).status is Status.RUNNING
    hands = await setup.play_to_the_end(tid, 6 * STACK)
    assert hands > 1
    finished = [e for e in setup.events(tid) if isinstance(e, events.Finished)]
    assert len(finished) == 1
    paid = dict(finished[0].prizes)
    # 65% / 35% of 6,000; players out in one hand with equal chips share 2nd place.
    assert paid[finished[0].winner] == 3_900
    assert sum(paid.values()) == 6 * BUY_IN
    for player in PLAYERS[:6]:  # buy-in and fee out, the prize in
        assert setup.wallet.balances[player] == FUNDS - BUY_IN - FEE + paid.get(player, 0)
    busted = [e.player for e in setup.events(tid) if isinstance(e, events.PlayerEliminated)]
    assert sorted(busted) == sorted(p for p in PLAYERS[:6] if p != finished[0].winner)


async def test_rule_48_a_sit_and_go_winner_gets_its_coupon_prize(setup: Setup) -> None:
    settings = replace(poker_settings(), coupon_prizes=(CouponPrize(1, 2 * BUY_IN, 30),))
    tid, _ = await setup.director.create("sng-coupon", settings)
    for player in PLAYERS[:6]:
        await setup.director.register(tid, player)
    await setup.play_to_the_end(tid, 6 * STACK)
    (finished,) = [e for e in setup.events(tid) if isinstance(e, events.Finished)]
    assert setup.wallet.issued == {f"{tid}:place-1": (finished.winner, 2 * BUY_IN)}
    assert sum(dict(finished.prizes).values()) == 6 * BUY_IN  # the money as without it


async def test_rule_53_a_spin_starts_with_its_third_entry_and_reveals_its_draw(
    setup: Setup,
) -> None:
    setup.wallet.prize_funds[("poker", "USD")] = fund_needed(PUBLISHED_TABLE, BUY_IN)
    tid, _ = await setup.director.create("spin", SPIN)
    (created,) = setup.events(tid)
    assert isinstance(created, events.Created)
    committed = created.seed_commitment
    assert committed == commitment(setup.record(tid).seating_seed)
    for player in PLAYERS[:3]:
        await setup.director.register(tid, player)
    assert setup.record(tid).status is Status.RUNNING
    (drawn,) = (e for e in setup.events(tid) if isinstance(e, events.SpinDrawn))
    assert drawn.seed_commitment == committed
    assert verify_draw(PUBLISHED_TABLE, drawn.revealed_seed, committed, drawn.multiplier)
    row = next(r for r in PUBLISHED_TABLE.rows if r.multiplier == drawn.multiplier)
    assert drawn.prizes == prizes(row, BUY_IN)
    view = lobby_view(setup.record(tid))
    assert (view.spin_multiplier, view.seed_commitment) == (drawn.multiplier, committed)
    # Shown before the first hand: the draw is announced before the hands are hosted.
    kinds = [type(e) for e in setup.events(tid)]
    assert kinds.index(events.SpinDrawn) < kinds.index(events.RoundHosted)
    # The pool holds the prizes: the prize fund added or took the difference.
    assert setup.wallet.pool(tid) == sum(drawn.prizes)


async def test_rule_53_a_spin_is_not_filled_while_the_prize_fund_cannot_pay_its_largest_prize(
    setup: Setup,
) -> None:
    """Whatever the seed draws (here 2x), the third entry waits for a fund that covers the
    table's largest multiplier: the refusal tells nothing of the draw, and charges nothing."""
    needed = fund_needed(PUBLISHED_TABLE, BUY_IN)
    assert needed == (1000 - 3) * BUY_IN
    setup.wallet.prize_funds[("poker", "USD")] = needed - 1
    tid, _ = await setup.director.create("spin", SPIN, seed=bytes([0]) * 32)
    for player in PLAYERS[:2]:
        await setup.director.register(tid, player)
    refusal = await refused(setup.director.register(tid, PLAYERS[2]))
    assert (status_name(refusal), refusal.reason) == ("failed_precondition", "prize_fund_short")
    assert "prize fund" in refusal.message
    assert setup.wallet.balances[PLAYERS[2]] == FUNDS
    assert setup.record(tid).status is Status.REGISTERING
    assert setup.record(tid).players() == PLAYERS[:2]
    setup.wallet.prize_funds[("poker", "USD")] = needed  # the operator tops it up
    await setup.director.register(tid, PLAYERS[2])
    assert setup.record(tid).status is Status.RUNNING
    (drawn,) = (e for e in setup.events(tid) if isinstance(e, events.SpinDrawn))
    assert drawn.multiplier == 2
    assert setup.wallet.pool(tid) == 2 * BUY_IN  # one buy-in went to the fund
    assert setup.wallet.prize_funds[("poker", "USD")] == needed + BUY_IN


def _scheduled(**terms: object) -> Settings:
    return poker_settings(
        "scheduled",
        min_players=2,
        max_players=30,
        table_size=9,
        variant="nlhe",
        terms=PokerTerms("scheduled", levels=FAST, **terms),  # type: ignore[arg-type]
    )


async def _started(setup: Setup, settings: Settings, players: int) -> str:
    tid, _ = await setup.director.create("mtt", settings)
    for player in PLAYERS[:players]:
        await setup.director.register(tid, player)
    setup.clock.now = START
    await setup.director.start_due()
    assert setup.record(tid).status is Status.RUNNING
    return tid


async def test_rule_54_registering_after_late_registration_closed_is_refused(
    setup: Setup,
) -> None:
    tid = await _started(setup, _scheduled(late_registration_level=1), 4)
    setup.clock.advance(30)  # level 1: a late entry is taken
    await setup.director.register(tid, PLAYERS[4])
    assert PLAYERS[4] in {seat.player for seat in setup.record(tid).seats}
    setup.clock.advance(60)  # level 2
    before = (setup.record(tid), dict(setup.wallet.balances))
    error = await refused(setup.director.register(tid, PLAYERS[5]))
    assert (status_name(error), error.reason) == ("failed_precondition", "late_registration_closed")
    assert (setup.record(tid), setup.wallet.balances) == before


async def test_rule_48_a_coupon_pays_no_late_entry(setup: Setup) -> None:
    settings = replace(_scheduled(late_registration_level=1), coupons_accepted=True)
    tid = await _started(setup, settings, 4)
    setup.wallet.coupons["cp-1"] = (PLAYERS[4], 10**9)
    setup.clock.advance(30)  # level 1: a late entry is taken, in money only
    before = (setup.record(tid), dict(setup.wallet.balances))
    error = await refused(setup.director.register(tid, PLAYERS[4], coupon_id="cp-1"))
    assert (status_name(error), error.reason) == ("failed_precondition", "coupon_after_start")
    assert (setup.record(tid), setup.wallet.balances) == before
    assert "cp-1" in setup.wallet.coupons


async def _first_bust(setup: Setup, tid: str) -> str:
    """Bots play hands until one eliminates a player; who."""
    rng = random.Random(tid)
    for _ in range(MAX_HANDS):
        out = [e.player for e in setup.events(tid) if isinstance(e, events.PlayerEliminated)]
        if out:
            return out[0]
        await until(lambda: bool(poker_tables(setup.hosted)))
        table_id = poker_tables(setup.hosted)[0]
        await play_hand(setup.hosted, table_id, rng)
        await until(partial(setup.applied, tid, table_id))
    raise AssertionError("nobody was eliminated")


async def test_rule_54_re_entry_is_refused_when_the_tournament_allows_none(setup: Setup) -> None:
    tid = await _started(setup, _scheduled(late_registration_level=4), 4)
    error = await refused(setup.director.register(tid, PLAYERS[0]))
    assert (status_name(error), error.reason) == ("failed_precondition", "still_playing")
    out = await _first_bust(setup, tid)
    before = (setup.record(tid), dict(setup.wallet.balances))
    error = await refused(setup.director.register(tid, out))
    assert (status_name(error), error.reason) == ("failed_precondition", "reentry_not_allowed")
    assert (setup.record(tid), setup.wallet.balances) == before


async def test_rule_54_an_eliminated_player_re_enters_when_allowed(setup: Setup) -> None:
    tid = await _started(setup, _scheduled(late_registration_level=4, max_reentries=1), 4)
    out = await _first_bust(setup, tid)
    entry_id = await setup.director.register(tid, out)
    assert entry_id.endswith(":entry-2")
    assert setup.wallet.balances[out] == FUNDS - 2 * (BUY_IN + FEE)
    state = poker_state(setup.record(tid))
    assert state is not None and state.chips[out] == STACK and state.entries[out] == 2
    assert out in {seat.player for seat in setup.record(tid).seats}


async def test_an_unknown_blind_structure_is_refused_and_creates_nothing(setup: Setup) -> None:
    unknown = poker_settings(terms=PokerTerms("sit_and_go", preset="glacial"))
    error = await refused(setup.director.create("bad", unknown))
    assert (status_name(error), error.reason) == ("invalid_argument", "unknown_structure")
    assert "glacial" in error.message and "turbo" in error.message
    assert setup.repository.records == {}


async def test_a_restarted_director_drives_the_saved_hands_and_plays_on_to_the_end(
    setup: Setup,
) -> None:
    """Each decision is saved before the host acts on it: a new director on the same
    record (a restart) opens the hands saved but not opened again by their ids (the host
    answers the same tables), then reads the results and plays on, paying once."""
    tid, _ = await setup.director.create("restart", poker_settings())
    for player in PLAYERS[:6]:
        await setup.director.register(tid, player)
    rng = random.Random("restart")
    for _ in range(3):
        (table_id,) = poker_tables(setup.hosted)
        await play_hand(setup.hosted, table_id, rng)
        await until(partial(setup.applied, tid, table_id))
    for subscription in setup.hosted.subscriptions:  # the first director stops
        await subscription.stop()
    setup.hosted.subscriptions.clear()
    record = setup.record(tid)
    # As if it had crashed after saving the next hand, before the host opened its table.
    setup.repository.records[tid] = replace(
        record, hands=tuple(replace(h, table_id="") for h in record.hands)
    )
    tables_before = set(setup.hosted.host.table_ids())
    seeds = iter(Seeds("restarted"), None)
    setup.director = Director(
        repository=setup.repository,
        wallet=setup.wallet,
        tables=setup.hosted.tables,
        clock=setup.clock,
        seeds=lambda: next(seeds),
    )
    await setup.hosted.read_results(setup.director)
    await setup.director.rounds.advance_running()
    assert set(setup.hosted.host.table_ids()) == tables_before  # the same table, reopened
    assert [h.table_id for h in setup.record(tid).hands] == [h.table_id for h in record.hands]
    await setup.play_to_the_end(tid, 6 * STACK)
    finished = [e for e in setup.events(tid) if isinstance(e, events.Finished)]
    assert len(finished) == 1
    assert sum(setup.wallet.balances[p] for p in PLAYERS[:6]) == 6 * (FUNDS - FEE)


async def test_rule_59_bots_register_where_allowed_and_sit_labelled_bot(setup: Setup) -> None:
    settings = poker_settings(terms=PokerTerms("sit_and_go", levels=FAST, bots_allowed=True))
    tid, _ = await setup.director.create("bots", settings)
    for player in PLAYERS[:4]:
        await setup.director.register(tid, player)
    for player in PLAYERS[4:6]:
        await setup.director.register(tid, player, bot=True)
    registered = [e for e in setup.events(tid) if isinstance(e, events.Registered)]
    assert [e.bot for e in registered] == [False] * 4 + [True] * 2
    (table_id,) = poker_tables(setup.hosted)
    dealt: PokerTable = setup.hosted.host._table(table_id).state.engine_state
    assert dealt.bots == frozenset(PLAYERS[4:6]) & {p for _, p, _ in dealt.seats}


async def test_rule_59_a_bot_is_refused_where_bots_are_not_allowed(setup: Setup) -> None:
    tid, _ = await setup.director.create("no-bots", poker_settings())
    before = (setup.record(tid), dict(setup.wallet.balances))
    error = await refused(setup.director.register(tid, PLAYERS[0], bot=True))
    assert (status_name(error), error.reason) == ("failed_precondition", "bots_not_allowed")
    assert (setup.record(tid), setup.wallet.balances) == before
