"""The director plays a tournament's rounds on the real table host, in process (rules
2, 9, 12-21, 34, 42, 44, 47; OQ 3, 6, 17, 22): each round is a table with the level's
terms in force at its start, seated with the director's chips; the host's round result
is settled by the points core; eliminations open rebuy offers; levels rise on the clock;
tables are balanced between rounds; prizes are paid at the end in one batch."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

import pytest
from prometheus_client import REGISTRY

from croupier.game import RuleBroken
from croupier.rummy.tools.bots import gin_bot_action
from croupier.tournament.adapters.memory import InMemoryRepository, InMemoryWallet
from croupier.tournament.core.actions import StartRound
from croupier.tournament.core.coupon_prizes import CouponPrize
from croupier.tournament.core.options import Level
from croupier.tournament.core.payouts import PayoutBracket
from croupier.tournament.core.ranking import ranking
from croupier.tournament.core.state import Tournament
from croupier.tournament.service.coupon_awards import award_coupons
from croupier.tournament.service.director import Director
from croupier.tournament.service.events import (
    Finished,
    PlayerEliminated,
    PlayerRebought,
    RoundEnded,
    RoundHosted,
    RoundStarted,
)
from croupier.tournament.service.model import RebuyTerms, Status, TournamentRecord
from tests.support.refusals import status_name
from tests.support.table import Seeds, until
from tests.unit.tournament.director_sample import START, ManualClock, sample_settings
from tests.unit.tournament.hosted import Hosted, hosted_tables

FUNDS = 10_000
PRICE = 1_000
REBUY_FEE = 100
PAYOUTS = (PayoutBracket(2, 3, (10_000,)), PayoutBracket(4, 8, (7_000, 3_000)))


@dataclass
class Game:
    hosted: Hosted
    repository: InMemoryRepository
    wallet: InMemoryWallet
    clock: ManualClock
    seeds: Iterator[bytes]
    director: Director
    tid: str = ""

    def new_director(self) -> Director:
        """A director on the same repository, wallet and host (a restarted process)."""
        return Director(
            repository=self.repository,
            wallet=self.wallet,
            tables=self.hosted.tables,
            clock=self.clock,
            seeds=lambda: next(self.seeds),
        )

    @property
    def record(self) -> TournamentRecord:
        return self.repository.records[self.tid]

    @property
    def state(self) -> Tournament:
        state = self.record.standings()
        assert state is not None
        return state

    def tables(self) -> list[str]:
        """The host's tables of the running rounds, opened by the director."""
        return [h.table_id for h in self.record.hosted if h.table_id]

    async def start(self, players: str, seed: bytes = b"", **changes: object) -> None:
        self.tid, _ = await self.director.create("game", sample_settings(**changes), seed)
        for player in players:
            await self.director.register(self.tid, player)
        self.clock.now = START
        await self.director.start_due()

    async def play(self, table_id: str) -> None:
        """Bots play a round; the director has settled it once it is no longer hosted."""
        await self.hosted.play(table_id)
        await until(lambda: table_id not in self.tables())

    def chips_in_play(self) -> int:
        """Chips in hand and in the running rounds' pots (rule 20)."""
        state = self.state
        pots = sum(sum(r.paid) for r in state.running)
        return sum(p.chips for p in state.entrants.values()) + pots


def _gin(**changes: object) -> dict[str, object]:
    """Gin at tables of 2 with a short stack, so that a lost round eliminates (rule 9)."""
    settings: dict[str, object] = {
        "variant": "gin",
        "table_size": 2,
        "min_players": 2,
        "starting_chips": 20,
        "levels": (Level(10, 5), Level(10, 10)),
        "rebuys": RebuyTerms(
            max_per_player=1, max_level=3, price=PRICE, fee=REBUY_FEE, window_seconds=25
        ),
    }
    settings.update(changes)
    return settings


@pytest.fixture
async def game() -> AsyncIterator[Game]:
    async with new_game() as played:
        yield played


@asynccontextmanager
async def new_game(director_seeds: str = "director") -> AsyncIterator[Game]:
    """A director, a wallet and a table host of its own (the host's seeds the same every
    time, the director's fresh seeds from `director_seeds`)."""
    async with hosted_tables() as hosted:
        repository = InMemoryRepository()
        wallet = InMemoryWallet(balances=dict.fromkeys("abcdefgh", FUNDS))
        clock = ManualClock(START.replace(hour=12))
        seeds = iter(Seeds(director_seeds), None)
        director = Director(
            repository=repository,
            wallet=wallet,
            tables=hosted.tables,
            clock=clock,
            seeds=lambda: next(seeds),
        )
        await hosted.read_results(director)
        yield Game(hosted, repository, wallet, clock, seeds, director)


async def test_rule_19_each_round_s_table_gets_the_terms_of_the_level_at_its_start(
    game: Game,
) -> None:
    await game.start("abcde")  # Rummy 51, tables of 4: 3 + 2
    first = game.tables()
    assert len(first) == 2
    for table_id in first:
        table = game.hosted.table(table_id)
        assert (table.round_fee, table.chip_ratio, table.limit_to_winner_risk) == (10, 1, True)
        assert set(table.stacks) == {1_500}
    game.clock.advance(600)  # level 2 takes effect while the rounds run (OQ 17)
    await game.director.rounds.advance_running()
    assert game.state.level == 2
    assert {game.hosted.table(t).round_fee for t in first} == {10}
    await game.play(first[0])
    second = [t for t in game.tables() if t not in first]
    assert second and {
        (game.hosted.table(t).round_fee, game.hosted.table(t).chip_ratio) for t in second
    } == {(20, 2)}


async def test_rules_20_23_the_director_settles_chips_as_the_table_did(game: Game) -> None:
    await game.start("abcde")
    for table_id in game.tables():
        await game.play(table_id)
        table = game.hosted.table(table_id)
        state = game.state
        for player, stack in zip(table.seats, table.stacks, strict=True):
            running = next((r for r in state.running if player in r.table), None)
            paid = 0 if running is None else running.paid[running.table.index(player)]
            assert state.entrants[player].chips + paid == stack
        assert game.chips_in_play() == 5 * 1_500


async def test_rule_18_levels_rise_on_the_clock_with_the_level_up_bonus(game: Game) -> None:
    await game.start("abc")
    game.clock.advance(1_199)
    await game.director.rounds.advance_running()
    assert game.state.level == 2
    game.clock.advance(1)
    await game.director.rounds.advance_running()
    state = game.state
    assert state.level == 3
    assert {p.points for p in state.entrants.values()} == {4}  # rule 34: +2 per level


async def _eliminate(game: Game) -> str:
    """Play the first table's rounds until one eliminates a player; who."""
    for _ in range(20):
        table_id = game.tables()[0]
        await game.play(table_id)
        if game.record.offers:
            return game.record.offers[0].player
    raise AssertionError("no round eliminated anyone")


async def test_rules_9_17_an_eliminated_player_is_offered_a_rebuy_and_may_accept(
    game: Game,
) -> None:
    await game.start("abcd", **_gin())
    out = await _eliminate(game)
    state = game.state
    assert state.entrants[out].out is not None and state.entrants[out].chips == 0
    idle = [t for t in game.tables()]
    starts = state.starts
    # OQ 6: no round starts while the offer is open.
    await game.director.rounds.advance_running()
    assert game.state.starts == starts and game.tables() == idle
    balance = game.wallet.balances[out]
    assert await game.director.answer_rebuy(game.tid, out, accept=True) == 20
    assert game.wallet.balances[out] == balance - PRICE - REBUY_FEE
    assert f"{game.tid}:{out}:rebuy-1" in game.wallet.entries
    state = game.state
    assert state.entrants[out].out is None and state.entrants[out].rebuys == 1
    assert any(out in r.table for r in state.running)  # back at a table (rule 17)
    assert game.record.prize_pool() == 4 * 1_000 + PRICE


async def test_rule_17_an_offer_not_answered_in_its_window_is_final(game: Game) -> None:
    await game.start("abcd", **_gin())
    out = await _eliminate(game)
    game.clock.advance(24)
    await game.director.rounds.advance_running()
    assert game.record.offers
    game.clock.advance(1)
    await game.director.rounds.advance_running()
    assert not game.record.offers
    assert out not in {s.player for s in game.record.seats}
    with pytest.raises(RuleBroken) as refusal:
        await game.director.answer_rebuy(game.tid, out, accept=True)
    assert (status_name(refusal.value), refusal.value.reason) == (
        "failed_precondition",
        "rebuy_window_closed",
    )
    assert game.wallet.balances[out] == FUNDS - 1_100


async def test_rule_17_an_answer_after_the_window_is_refused_before_any_tick(
    game: Game,
) -> None:
    await game.start("abcd", **_gin())
    out = await _eliminate(game)
    game.clock.advance(25)
    with pytest.raises(RuleBroken) as refusal:
        await game.director.answer_rebuy(game.tid, out, accept=True)
    assert refusal.value.reason == "rebuy_window_closed"
    assert game.wallet.balances[out] == FUNDS - 1_100


async def test_rule_17_a_declined_offer_ends_the_player_s_tournament(game: Game) -> None:
    await game.start("abcd", **_gin())
    out = await _eliminate(game)
    assert await game.director.answer_rebuy(game.tid, out, accept=False) == 0
    assert not game.record.offers
    assert not any(out in r.table for r in game.state.running)
    assert game.wallet.balances[out] == FUNDS - 1_100


def _moved_on(hosted: Hosted, table_id: str, before: object) -> bool:
    return hosted.table(table_id).round is not before


async def test_rule_43_a_disconnected_player_keeps_his_seat_and_is_played_automatically(
    game: Game,
) -> None:
    """He is away past the reconnection window: still seated, his turns are the clock's
    (rule 45), the round goes on and the director settles it; `Reconnect` gives him back
    his own view and ends the absence."""
    await game.start("ab", **_gin())
    (table_id,) = game.tables()
    host, clock = game.hosted.host, game.hosted.clock
    assert clock is not None
    await host.disconnect(table_id, "a")
    timed_out = 0
    for move in range(2_000):
        state: Any = game.hosted.table(table_id).round
        if state is None or state.result is not None:
            break
        if state.to_act == "b":
            await host.act(table_id, "b", f"b-{move}", gin_bot_action(state))
            continue
        clock.advance(20_000)  # a's turn time (turn_seconds) runs out
        await until(partial(_moved_on, game.hosted, table_id, state))
        timed_out += 1
        view = host.view(table_id, "")
        assert "a" in view.seated and "a" in view.disconnected and "a" in view.auto_players
    else:
        raise AssertionError("the round never ended")
    assert timed_out >= 2
    await until(lambda: table_id not in game.tables())  # the director settled the round
    assert game.state.starts >= 1
    back = await host.reconnect(table_id, "a")
    assert "a" in back.seated and not host.is_disconnected(table_id, "a")


async def test_rule_46_vector_22_an_all_automatic_round_is_cancelled_with_the_fees_back(
    game: Game,
) -> None:
    """Both players away: every turn is the clock's; 5 minutes after all became automatic
    the host cancels the round and the director gives each his fee back, no points (OQ
    24); the host logs a few entries a second meanwhile, never spins. Rummy 51, whose
    discard pile is turned over: the stock never runs out and ends the round first."""
    await game.start("ab", **_gin(variant="rummy51"))
    (table_id,) = game.tables()
    host, clock = game.hosted.host, game.hosted.clock
    assert clock is not None
    for player in "ab":
        await host.disconnect(table_id, player)
    started_ms = clock.now
    while table_id in game.tables():
        assert clock.now - started_ms < 10 * 60_000, "the round was never cancelled"
        clock.advance(1_000)
        await asyncio.sleep(0.002)
    assert clock.now - started_ms >= 5 * 60_000
    entries = len(host._table(table_id).log)
    assert entries <= 3 * (clock.now - started_ms) // 1_000  # a few a second at most
    recorded = [r.event for r in game.repository.events[game.tid]]
    (ended,) = [e for e in recorded if isinstance(e, RoundEnded)]
    assert (ended.winner, ended.payments) == ("", ())
    state = game.state
    for player in "ab":  # each fee back: a next round may have taken the new one
        running = next((r for r in state.running if player in r.table), None)
        paid = 0 if running is None else running.paid[running.table.index(player)]
        assert state.entrants[player].chips + paid == 20
        assert state.entrants[player].points == 0


async def _play_to_the_end(game: Game, rebuys: int = 1) -> None:
    """Bots play every round; each eliminated player rebuys while he has `rebuys` left."""
    entrants = len(game.record.players())
    for _ in range(500):
        if game.record.status is not Status.RUNNING:
            return
        for offer in game.record.offers:
            accept = game.state.entrants[offer.player].rebuys < rebuys
            await game.director.answer_rebuy(game.tid, offer.player, accept=accept)
        tables = game.tables()
        if tables:
            await game.play(tables[0])
        bought = sum(p.rebuys for p in game.state.entrants.values())
        assert game.chips_in_play() == 20 * (entrants + bought)  # conserved every round
    raise AssertionError("the tournament never ended")


async def test_rules_2_47_a_tournament_played_to_the_end_pays_its_pool_in_one_batch(
    game: Game,
) -> None:
    await game.start("abcd", **_gin())
    await _play_to_the_end(game)
    record = game.record
    assert record.status is Status.FINISHED
    state = game.state
    assert state.finished and sum(p.chips for p in state.entrants.values()) == 20 * (
        4 + sum(p.rebuys for p in state.entrants.values())
    )
    ((payout_id, (tid, prizes)),) = game.wallet.payouts.items()
    assert (payout_id, tid) == (f"{game.tid}:prizes", game.tid)
    rebuys = sum(p.rebuys for p in state.entrants.values())
    assert sum(prizes.values()) == 4 * 1_000 + rebuys * PRICE == record.prize_pool()
    assert game.wallet.pool(game.tid) == 0
    winner = next(p.name for p in state.entrants.values() if p.out is None)
    assert max(prizes, key=prizes.__getitem__) == winner  # 60 % of the pool (4 entrants)
    announced = [e.event for e in game.repository.events[game.tid]]
    assert announced[-1] == Finished(winner, tuple(sorted(prizes.items())))
    kinds = {type(event) for event in announced}
    assert {RoundStarted, RoundHosted, RoundEnded, PlayerEliminated, PlayerRebought} <= kinds
    hosted = [e.table_id for e in announced if isinstance(e, RoundHosted)]
    assert len(hosted) == len(set(hosted)) == state.starts  # one table per round
    offers = [e for e in announced if isinstance(e, PlayerEliminated) and e.offer_until]
    assert offers  # the eliminated who could rebuy were told until when (rule 17)


async def test_rule_48_places_win_their_coupon_prizes_apart_from_the_money(game: Game) -> None:
    prizes = (CouponPrize(1, 1_100, 30), CouponPrize(2, 550, 7))
    await game.start("abcd", **_gin(coupon_prizes=prizes))
    await _play_to_the_end(game)
    assert game.record.status is Status.FINISHED
    places = ranking(game.state)
    first, second = places[0].players[0], [p for e in places for p in e.players][1]
    assert game.wallet.issued == {
        f"{game.tid}:place-1": (first, 1_100),
        f"{game.tid}:place-2": (second, 550),
    }
    assert game.wallet.pool(game.tid) == 0  # the coupons took nothing from the pool
    # Issued again (a director restarted before it recorded the end): nothing more.
    assert await award_coupons(game.wallet, game.record, places, game.clock.now) == 2
    assert len(game.wallet.issued) == 2 and len(game.wallet.coupons) == 2


async def test_rule_42_tables_close_and_the_final_table_forms_when_all_fit(game: Game) -> None:
    await game.start("abcdef", **_gin(rebuys=None))
    seen_final = False
    for _ in range(200):
        if game.record.status is not Status.RUNNING:
            break
        state = game.state
        players_in = [p for p in state.entrants.values() if p.out is None]
        tables = {s.table for s in game.record.seats}
        # Between rounds the balancer keeps as few tables as hold the players (rule 42).
        assert len(tables) <= -(-len(players_in) // 2) + len(state.running)
        seen_final = seen_final or state.final_table is not None
        await game.play(game.tables()[0])
    assert game.record.status is Status.FINISHED and seen_final


async def test_a_last_round_ending_after_a_level_s_time_still_pays_the_prizes(
    game: Game,
) -> None:
    """The clock passes a level while the last round is played (no tick between): the
    finish raises no level and pays the pool."""
    await game.start("ab", **_gin(rebuys=None))
    for _ in range(50):
        if game.record.status is not Status.RUNNING:
            break
        game.clock.advance(600)  # a level comes due during the round, no tick sees it
        await game.play(game.tables()[0])
        await until(lambda: game.record.status is not Status.RUNNING or bool(game.tables()))
    assert game.record.status is Status.FINISHED
    ((_, (_, prizes)),) = game.wallet.payouts.items()
    assert sum(prizes.values()) == 2 * 1_000
    assert game.wallet.pool(game.tid) == 0


async def _balanced_to_the_end(seed: bytes, run: str) -> tuple[list[object], list[object]]:
    """An eight-player Rummy tournament at tables of 4, without rebuys, played to the end
    by the bots on a fresh host, the director's own fresh seeds differing by `run`: its
    core actions and events but the host's table ids."""
    settings = _gin(variant="rummy", table_size=4, rebuys=None, max_players=8, payouts=PAYOUTS)
    async with new_game(f"director-{run}") as game:
        await game.start("abcdefgh", seed, **settings)
        for _ in range(200):
            if game.record.status is not Status.RUNNING:
                break
            await game.play(game.tables()[0])
        assert game.record.status is Status.FINISHED
        events = [r.event for r in game.repository.events[game.tid]]
        return list(game.record.actions), [e for e in events if not isinstance(e, RoundHosted)]


async def test_rules_7_42_the_same_seed_seats_and_moves_the_same_players() -> None:
    """Every draw derives from the tournament's seed: a replay with the same seed, players
    and deals makes the same decisions; another seed seats them otherwise."""
    seed = hashlib.sha256(b"replay").digest()
    actions, events = await _balanced_to_the_end(seed, "first")
    assert any(isinstance(a, StartRound) and len(a.table) == 2 for a in actions[3:])
    assert await _balanced_to_the_end(seed, "second") == (actions, events)
    other, _ = await _balanced_to_the_end(hashlib.sha256(b"other").digest(), "first")
    assert other[:3] != actions[:3]  # the first rounds' tables come from the seating draw


async def test_a_restarted_director_resumes_the_same_rounds_and_moves_no_money_twice(
    game: Game,
) -> None:
    await game.start("abcd", **_gin())
    tables = game.tables()
    restarted = game.new_director()
    await restarted.rounds.advance_running()
    assert game.tables() == tables
    for table_id in tables:  # seated once each: the host's tables are unchanged
        assert len(game.hosted.table(table_id).seats) == 2
    await game.hosted.read_results(restarted)
    game.director = restarted
    await _play_to_the_end(game)
    assert game.record.status is Status.FINISHED
    assert len(game.wallet.payouts) == 1 and game.wallet.pool(game.tid) == 0


async def test_rule_44_voiding_a_running_tournament_counts_a_crash_refund(game: Game) -> None:
    await game.start("abc")
    before = (
        REGISTRY.get_sample_value("croupier_tournament_crash_refunds_total", {"game": "rummy"}) or 0
    )
    assert await game.director.void(game.tid, "state unreadable") == 3
    after = REGISTRY.get_sample_value("croupier_tournament_crash_refunds_total", {"game": "rummy"})
    assert after == before + 1
    assert all(game.wallet.balances[p] == FUNDS for p in "abc")
    assert game.wallet.pool(game.tid) == 0


async def test_rule_16_a_player_in_a_round_rebuys_and_gets_the_chips_when_it_ends(
    game: Game,
) -> None:
    await game.start("abcde")  # 1,500 each, 10 paid into the first round: 1,490 + 10
    table_id = game.tables()[0]
    player = game.hosted.table(table_id).seats[0]
    assert await game.director.answer_rebuy(game.tid, player, accept=True) == 1_500
    assert game.wallet.balances[player] == FUNDS - 2 * 1_100  # the sample's price and fee
    assert game.state.entrants[player].pending == 1  # not at risk in this round (OQ 3)
    await game.play(table_id)
    stack = game.hosted.table(table_id).stacks[0]
    state = game.state
    running = next((r for r in state.running if player in r.table), None)
    paid = 0 if running is None else running.paid[running.table.index(player)]
    assert state.entrants[player].chips + paid == stack + 1_500  # credited once it ended
    with pytest.raises(RuleBroken) as refusal:  # now above the starting stack
        await game.director.answer_rebuy(game.tid, player, accept=True)
    assert refusal.value.reason in {"stack_above_start", "rebuy_limit"}


async def test_rule_16_oq_3_a_second_rebuy_in_one_round_counts_the_first_owed(
    game: Game,
) -> None:
    """The sample (two rebuys each): a player at a running round whose chips in hand + the
    fee he paid make the starting stack rebuys once; a second rebuy in the same round
    would take him to twice the starting stack when the round ends, so rule 16 refuses it
    (not the count), and nothing moves."""
    await game.start("abcde")  # 1,500 each, 10 paid into the first round: 1,490 + 10
    player = game.hosted.table(game.tables()[0]).seats[0]
    assert await game.director.answer_rebuy(game.tid, player, accept=True) == 1_500
    assert game.wallet.balances[player] == FUNDS - 2 * 1_100
    assert await _refused_rebuy(game, player) == ("failed_precondition", "stack_above_start")
    entrant = game.state.entrants[player]
    assert (entrant.chips, entrant.rebuys, entrant.pending) == (1_490, 1, 1)
    assert f"{game.tid}:{player}:rebuy-2" not in game.wallet.entries


async def _until(game: Game, reached: Callable[[], bool]) -> None:
    """Bots play the first table's rounds, every rebuy offer declined, until `reached()`."""
    for _ in range(200):
        if reached() or game.record.status is not Status.RUNNING:
            return
        for offer in game.record.offers:
            await game.director.answer_rebuy(game.tid, offer.player, accept=False)
        tables = game.tables()
        if tables:
            await game.play(tables[0])
    raise AssertionError("never reached")


async def _refused_rebuy(game: Game, player: str) -> tuple[str, str]:
    """The director's refusal of `player`'s rebuy, checked to have moved nothing."""
    before = (dict(game.wallet.balances), dict(game.wallet.entries), game.record)
    with pytest.raises(RuleBroken) as info:
        await game.director.answer_rebuy(game.tid, player, accept=True)
    assert (dict(game.wallet.balances), dict(game.wallet.entries), game.record) == before
    return status_name(info.value), info.value.reason


async def test_rule_13_a_rebuy_past_the_count_is_refused_naming_the_count(
    game: Game,
) -> None:
    await game.start("abcd", **_gin())  # one rebuy each
    out = await _eliminate(game)
    assert await game.director.answer_rebuy(game.tid, out, accept=True) == 20
    await _until(game, lambda: game.state.entrants[out].out is not None)
    assert game.state.entrants[out].out is not None and game.record.status is Status.RUNNING
    assert await _refused_rebuy(game, out) == ("failed_precondition", "rebuy_limit")


async def test_rule_14_a_rebuy_past_the_last_rebuy_level_is_refused(game: Game) -> None:
    terms = RebuyTerms(max_per_player=2, max_level=1, price=PRICE, fee=REBUY_FEE, window_seconds=25)
    await game.start("abcd", **_gin(rebuys=terms))
    game.clock.advance(10_000)  # levels rise on the clock
    await game.director.rounds.advance_running()
    assert game.state.level > 1
    player = next(n for n, e in game.state.entrants.items() if e.out is None)
    assert await _refused_rebuy(game, player) == ("failed_precondition", "rebuy_level")


async def test_rule_15_no_rebuy_once_the_final_table_started(game: Game) -> None:
    terms = RebuyTerms(
        max_per_player=9, max_level=99, price=PRICE, fee=REBUY_FEE, window_seconds=25
    )
    # Rummy 51 at tables of 4 with a short stack: two tables, then the final one.
    await game.start(
        "abcdef", **_gin(rebuys=terms, variant="rummy51", table_size=4, starting_chips=300)
    )
    await _until(game, lambda: game.state.final_table_start is not None)
    assert game.state.final_table_start is not None and game.record.status is Status.RUNNING
    player = next(n for n, e in game.state.entrants.items() if e.out is None)
    assert await _refused_rebuy(game, player) == ("failed_precondition", "final_table")


async def test_a_rebuy_in_an_unknown_tournament_is_not_found(game: Game) -> None:
    with pytest.raises(RuleBroken) as info:
        await game.director.answer_rebuy("t-none", "a", accept=True)
    assert (status_name(info.value), info.value.reason) == ("not_found", "unknown_tournament")
    assert game.wallet.balances == dict.fromkeys("abcdefgh", FUNDS)
