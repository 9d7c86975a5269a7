"""The dead button rule's dead small blind played on the table host (issue 25, TDA): the
big blind busts, so the next hand's small blind is his empty seat; the director asks the
host for a hand table with `dead_small_blind`, and the host deals it with the core's button
and big blind and no small blind: preflop from the player left of the big blind round to
the button, then the big blind's option; the big blind first after the flop.

The players push the big blind: in each hand the first player who covers him moves all-in,
the others fold and the big blind calls, until one such hand busts him."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from dataclasses import replace
from functools import partial

import pytest

from croupier.poker.core.seating import PokerTable
from croupier.poker.engine import ENGINE
from croupier.tournament.adapters.memory import InMemoryRepository, InMemoryWallet
from croupier.tournament.core.blinds import BlindStructure, Level
from croupier.tournament.core.payouts import PayoutBracket
from croupier.tournament.service.director import Director
from croupier.tournament.service.model import Settings, TournamentRecord
from croupier.tournament.service.poker_model import HostedHand, PokerTerms
from croupier.tournament.service.poker_play import poker_state
from tests.support.table import Seeds, until
from tests.unit.tournament.director_sample import START, ManualClock, sample_settings
from tests.unit.tournament.hosted import Hosted, hosted_tables
from tests.unit.tournament.poker_hosted import play_hand, poker_tables

PLAYERS = tuple(f"p{n}" for n in range(6))
STACK = 1_000
MAX_HANDS = 60


def settings() -> Settings:
    """A 6-max NLHE Sit & Go whose blinds never rise during the test."""
    return replace(
        sample_settings(),
        game="poker",
        variant="nlhe",
        name="NLHE Sit & Go",
        min_players=6,
        max_players=6,
        buy_in=1_000,
        fee=100,
        starting_chips=STACK,
        table_size=6,
        levels=(),
        rebuys=None,
        payouts=(PayoutBracket(2, 100, (6_500, 3_500)),),
        poker=PokerTerms("sit_and_go", levels=BlindStructure((Level(10, 20, 0, "none", 60),))),
    )


@pytest.fixture
async def hosted() -> AsyncIterator[Hosted]:
    async with hosted_tables() as hosted:
        yield hosted


async def started(hosted: Hosted) -> tuple[InMemoryRepository, str]:
    """A Sit & Go started by its sixth registration; the director reads the host's results."""
    repository = InMemoryRepository()
    seeds = iter(Seeds("dead-small-blind"), None)
    director = Director(
        repository=repository,
        wallet=InMemoryWallet(balances=dict.fromkeys(PLAYERS, 10_000)),
        tables=hosted.tables,
        clock=ManualClock(START.replace(hour=12)),
        seeds=lambda: next(seeds),
    )
    await hosted.read_results(director)
    tid, _ = await director.create("dead-small-blind", settings())
    for player in PLAYERS:
        await director.register(tid, player)
    return repository, tid


def table_of(hosted: Hosted, table_id: str) -> PokerTable:
    state: PokerTable = hosted.host._table(table_id).state.engine_state
    return state


async def push_the_big_blind(hosted: Hosted, table_id: str) -> None:
    """The hand's first player who covers the big blind moves all-in, the others fold, the
    big blind calls (nobody covers him: everyone folds to him)."""
    while (state := table_of(hosted, table_id)).running:
        hand = state.hand
        assert hand is not None
        big_blind = hand.bb_seat
        (turn,) = ENGINE.turns(state)
        seat = hand.seat_of(turn.player)
        covers = hand.stacks[seat] + hand.bets[seat] >= hand.initial[big_blind]
        if seat == big_blind:
            action = "call" if hand.current_bet > hand.bets[seat] else "check"
        elif covers and hand.current_bet <= state.options.config.big_blind:
            action = "allin"
        else:
            action = "fold"
        await hosted.host.act(
            table_id, turn.player, f"{table_id}-{len(hand.actions)}", {"action": action}
        )


def applied(repository: InMemoryRepository, tid: str, table_id: str) -> bool:
    return all(h.table_id != table_id for h in repository.records[tid].hands)


async def hand_with_a_dead_small_blind(
    hosted: Hosted, repository: InMemoryRepository, tid: str
) -> tuple[TournamentRecord, HostedHand]:
    """Hands pushed at the big blind until the director deals one with a dead small blind."""
    for _ in range(MAX_HANDS):
        await until(lambda: bool(poker_tables(hosted)))
        record = repository.records[tid]
        (hand,) = record.hands
        if hand.dead_small_blind:
            await until(lambda: bool(repository.records[tid].hands[0].table_id))
            return repository.records[tid], repository.records[tid].hands[0]
        await push_the_big_blind(hosted, hand.table_id)
        await until(partial(applied, repository, tid, hand.table_id))
    raise AssertionError("no big blind busted")


async def test_tda_dead_small_blind_after_the_big_blind_busts_the_host_deals_none(
    hosted: Hosted,
) -> None:
    repository, tid = await started(hosted)
    record, hosted_hand = await hand_with_a_dead_small_blind(hosted, repository, tid)
    state = poker_state(record)
    assert state is not None
    table = state.tables[hosted_hand.table - 1]
    blinds = table.blinds
    assert blinds is not None
    seated = dict(table.seats)
    # The core's decision: the last big blind's seat is empty, the small blind dead.
    assert blinds.small_blind not in seated and len(hosted_hand.seats) >= 3
    dealt = table_of(hosted, hosted_hand.table_id)
    hand = dealt.hand
    assert hand is not None and hand.dead_small_blind
    assert hand.ids[hand.bb_seat] == seated[blinds.big_blind]
    assert hand.ids[hand.button] == seated[blinds.button]
    assert sum(hand.bets) == 20  # the big blind alone posted
    order = sorted(s for s, _ in table.seats)
    after_big_blind = seated[order[(order.index(blinds.big_blind) + 1) % len(order)]]
    after_button = seated[order[(order.index(blinds.button) + 1) % len(order)]]
    assert after_button == seated[blinds.big_blind]  # after the flop the big blind acts first
    assert [t.player for t in ENGINE.turns(dealt)] == [after_big_blind]
    # The hand plays to its end and the director takes its result: chips conserved.
    await play_hand(hosted, hosted_hand.table_id, random.Random(tid))
    await until(partial(applied, repository, tid, hosted_hand.table_id))
    after = poker_state(repository.records[tid])
    assert after is not None and sum(after.chips.values()) == len(PLAYERS) * STACK
