"""The poker tournament of `benchmarks/poker_tournament` through the whole director (its
second table): `croupier.tournament.service.director` on its in-memory repository and
wallet, each hand a table of the real table host in process (`_tournament_host`), its
end read from the bus as in production; `RandomBot`s play every hand the director opens
through the host (`host.act`), each from its own seat's view. The peer: the same hands
(options, seats, stacks, seeds, bots' choices) opened and played on a fresh host alone,
in the order the director opened them; their end stacks must be the director's."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmarks._tournament_host import (
    Recorder,
    SignallingRepository,
    SimulatedClock,
    new_host,
    open_alone,
)
from croupier.poker.core.seating import PokerTable
from croupier.poker.engine import ENGINE
from croupier.poker.tools.bots import RandomBot
from croupier.table.service.host import TableHost
from croupier.tournament.adapters.memory import InMemoryWallet
from croupier.tournament.adapters.tables import InProcessTableHost, hand_options
from croupier.tournament.core.blinds import BlindStructure
from croupier.tournament.core.payouts import PayoutBracket
from croupier.tournament.entrypoints import table_events
from croupier.tournament.service.director import Director
from croupier.tournament.service.model import Settings, Status
from croupier.tournament.service.poker_model import PokerTerms
from croupier.tournament.service.ports import HandTable

START = datetime(2026, 12, 24, 18, 0, tzinfo=UTC)
FUNDS = 10_000
BUY_IN = 100
#: More actions than any hand takes: a hand still running after them is a bug.
MAX_ACTIONS = 1_000
BREAK_STEP_SECONDS = 60
Stacks = tuple[tuple[int, str, int], ...]


def settings(
    players: int,
    table_size: int,
    stack: int,
    structure: BlindStructure,
    payouts: tuple[PayoutBracket, ...],
) -> Settings:
    return Settings(
        game="poker",
        variant="nlhe",
        name="benchmark",
        start_time=START,
        min_players=2,
        max_players=players,
        currency="USD",
        buy_in=BUY_IN,
        fee=0,
        starting_chips=stack,
        table_size=table_size,
        level_seconds=600,
        levels=(),
        rebuys=None,
        payouts=payouts,
        coupons_accepted=False,
        turn_seconds=20,
        winner_risk_limit=True,
        poker=PokerTerms("scheduled", levels=structure),
    )


async def play_hand(host: TableHost, table_id: str, hand_id: str) -> tuple[Stacks, int]:
    """Random bots play the table's hand to its end (their choices drawn from the hand's
    id): the seats' stacks after it and the decisions taken."""
    rng = random.Random(hand_id)
    for count in range(MAX_ACTIONS):
        # The bots find whose turn it is from the host's table, as the tests' bots do;
        # each decides from his own seat's view.
        state: PokerTable = host._table(table_id).state.engine_state
        if not state.running:
            return tuple(state.seats), count
        (turn, *_) = ENGINE.turns(state)
        action = RandomBot(turn.player, rng).decide(ENGINE.view(state, turn.player))
        assert action is not None, f"{turn.player} had nothing to do on his turn"
        await host.act(table_id, turn.player, f"bot-{count}", action)
    raise AssertionError(f"{table_id}: the hand never ended")


async def with_director(players: int, terms: Settings, hand_seconds: int) -> dict[str, Any]:
    """The tournament through the director to its end; the hands it opened, in order,
    and how each ended. The director's clock moves `hand_seconds` divided by the hands
    in play for each hand played (tables play side by side), and `BREAK_STEP_SECONDS`
    at a time while no hand is in play (a break)."""
    host, bus, _ = new_host()
    await bus.start()
    await host.start()
    names = [f"bot{number}" for number in range(players)]
    repository = SignallingRepository()
    clock = SimulatedClock(START - timedelta(hours=1))
    seeds = (hashlib.sha256(b"director %d" % n).digest() for n in itertools.count())
    recorder = Recorder(InProcessTableHost(host))
    director = Director(
        repository=repository,
        wallet=InMemoryWallet(balances=dict.fromkeys(names, FUNDS)),
        tables=recorder,
        clock=clock,
        seeds=lambda: next(seeds),
    )
    subscription = await table_events.subscribe(bus, director)
    results: list[Stacks] = []
    decisions = 0
    try:
        tournament_id, _ = await director.create("benchmark", terms)
        for name in names:
            await director.register(tournament_id, name)
        clock.now = START
        await director.start_due()
        while True:
            repository.saved.clear()
            record = repository.records[tournament_id]
            if record.status is not Status.RUNNING:
                break
            if recorder.opened.empty():
                if not record.hands:  # a break: the director deals on the clock's tick
                    clock.now += timedelta(seconds=BREAK_STEP_SECONDS)
                    await director.rounds.advance(tournament_id)
                else:  # the director is reading a hand's end from the bus
                    await repository.next_save()
                continue
            table_id, hand = recorder.opened.get_nowait()
            assert isinstance(hand, HandTable)
            clock.now += timedelta(seconds=hand_seconds / (recorder.opened.qsize() + 1))
            stacks, taken = await play_hand(host, table_id, hand.hand_id)
            results.append(stacks)
            decisions += taken
            await asyncio.sleep(0)  # as after every game (`_tournament_host.YIELD`)
        assert record.status is Status.FINISHED
    finally:
        await subscription.stop()
        await host.stop()
        await bus.stop()
    return {"hands": recorder.opened_games, "results": results, "decisions": decisions}


async def host_alone(hands: list[HandTable]) -> list[Stacks]:
    """The peer: the same hands on a fresh host, in the same order, no director."""
    host, bus, _ = new_host()
    await bus.start()
    await host.start()
    results: list[Stacks] = []
    try:
        for hand in hands:
            options = hand_options(hand)
            table_id = await open_alone(host, "poker", options, hand.hand_id, hand.seats)
            stacks, _ = await play_hand(host, table_id, hand.hand_id)
            results.append(stacks)
            await asyncio.sleep(0)  # as after every game (`_tournament_host.YIELD`)
    finally:
        await host.stop()
        await bus.stop()
    return results
