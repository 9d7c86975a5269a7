"""Rummy tournament director (issue 18): a 1,000-player bots-only Rummy 51 tournament.

In process, one event loop, no I/O: the director (`croupier.tournament.service.director`
on its in-memory repository and wallet) runs the tournament on the real table host
(`croupier.table.service.host.TableHost`: every game's engines, an in-memory command log
and bus, known seeds), reading the rounds' results from the bus as in production. Bots
play each round the director opens, move by move through the host (`host.act`), with
the rummy tools' `laydown_bot_action`; a round still running after `SHAKE_AFTER` actions
is shaken loose by random discards, and one still running after `RUN_OUT_AFTER` (the
cards can cycle for ever between these simple bots: about one round in 500) is left to
the host's turn clock, whose auto-player plays it until it is cancelled (rule 46) and
the director deals the table again.

Fast to the end: stacks are short (`STARTING_CHIPS`) against the first level's terms,
so a lost round eliminates most losers and a table's round decides within minutes of
simulated time; five levels rise every `LEVEL_SECONDS` of the simulated clock, which
moves `ROUND_SECONDS` divided by the tables in play for each round played (the room's
tables play side by side). No rebuys.

Figures, all from one run:
- wall time, rounds and the director's share of CPU: `process_time` of the whole run
  against the peer, the same rounds (options, seats, stacks, seeds, bots) played on a
  fresh host alone, in the order the director opened them; share = (with - without) /
  with (goal: at most 15 %). The peer's results must equal the director's rounds'.
- balancing decisions/s at 1,000 players: calls to `rummy_rebalance` (counted and timed
  where the director's plan calls it) per second spent in them.

Measured (2026-12-05, the shared 2-core machine): 1,000 players, 1,060 rounds, 91,207
bot actions; 25.4 s of CPU through the director against 22.5 s for the host alone:
director share 11.4 % (goal met); 27 s wall; 3,300 balancing decisions/s. Before the
director kept its points state between rounds and balanced in one pass, the share was
48 % at 200 players and grew with the room (every round replayed every action since the
start).

Usage: `.venv/bin/python -m benchmarks.rummy_tournament [--players 1000]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import itertools
import random
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmarks._tournament_host import (
    Recorder,
    SignallingRepository,
    SimulatedClock,
    StillClock,
    Timed,
    new_host,
    open_alone,
)
from croupier.game import JSON, RuleBroken
from croupier.rummy.core.cards import card_names
from croupier.rummy.core.rummy_table import RummyTable
from croupier.rummy.tools.bots import laydown_bot_action
from croupier.table.service.host import TableHost
from croupier.tournament.adapters.memory import InMemoryWallet
from croupier.tournament.adapters.tables import InProcessTableHost, table_options
from croupier.tournament.core.options import Level
from croupier.tournament.core.payouts import PayoutBracket
from croupier.tournament.entrypoints import table_events
from croupier.tournament.service import plan
from croupier.tournament.service.director import Director
from croupier.tournament.service.model import Settings, Status
from croupier.tournament.service.ports import RoundTable

TABLE_SIZE = 4
STARTING_CHIPS = 30
LEVELS = (Level(10, 2), Level(20, 5), Level(50, 10), Level(100, 25), Level(200, 50))
LEVEL_SECONDS = 1_200
ROUND_SECONDS = 300
SHAKE_AFTER = 1_000
RUN_OUT_AFTER = 3_000
MAX_ACTIONS = 10_000
START = datetime(2026, 12, 24, 18, 0, tzinfo=UTC)
FUNDS = 10_000
WARM_UP_PLAYERS = 12
#: The host's deals (the same in both runs).
HOST_SEEDS = "rummy-tournament"


async def play(host: TableHost, turns: StillClock, table_id: str) -> tuple[JSON, int]:
    """Bots play the table's round to its end: its result and the actions taken. A round
    the shaken bots still cannot end after `RUN_OUT_AFTER` actions (the cards can cycle
    for ever between them) is left to the turn clock: the auto-player plays it until it
    is cancelled (rule 46), as a room's idle table would be."""
    rng = random.Random(table_id)
    for count in range(MAX_ACTIONS):
        # The bots read the round's whole state, as the tests' bots do (a player could
        # not): the host's table, not a player's view.
        table: RummyTable = host._table(table_id).state.engine_state
        round_state: Any = table.round
        if round_state is None or round_state.result is not None:
            assert table.last_round is not None, f"{table_id}: no round was played"
            return table.last_round, count
        if count >= RUN_OUT_AFTER:
            await turns.run_out(host, table_id)
            continue
        action = laydown_bot_action(round_state)
        player = round_state.to_act
        if count >= SHAKE_AFTER and action.get("action") == "discard":
            hand = card_names(round_state.hands[round_state.players.index(player)])
            shaken = {"action": "discard", "card": rng.choice(hand)}
            with contextlib.suppress(RuleBroken):  # a card it may not discard
                await host.act(table_id, player, f"bot-{count}", shaken)
                continue
        await host.act(table_id, player, f"bot-{count}", action)
    raise AssertionError(f"{table_id}: the round never ended")


def settings(players: int) -> Settings:
    return Settings(
        game="rummy",
        variant="rummy51",
        name="benchmark",
        start_time=START,
        min_players=2,
        max_players=players,
        currency="USD",
        buy_in=100,
        fee=0,
        starting_chips=STARTING_CHIPS,
        table_size=TABLE_SIZE,
        level_seconds=LEVEL_SECONDS,
        levels=LEVELS,
        rebuys=None,
        payouts=(PayoutBracket(2, 2, (10_000,)), PayoutBracket(3, 10_000, (5_000, 3_000, 2_000))),
        coupons_accepted=False,
        turn_seconds=20,
        winner_risk_limit=True,
    )


async def with_director(players: int) -> dict[str, Any]:
    """The tournament through the director to its end; the rounds it opened, in order."""
    host, bus, turns = new_host(HOST_SEEDS)
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
    results: list[JSON] = []
    actions = 0
    try:
        tournament_id, _ = await director.create("benchmark", settings(players))
        for name in names:
            await director.register(tournament_id, name)
        clock.now = START
        await director.start_due()
        while True:
            repository.saved.clear()
            if repository.records[tournament_id].status is not Status.RUNNING:
                break
            if recorder.opened.empty():  # the director is reading a result from the bus
                await repository.next_save()
                continue
            table_id, _ = recorder.opened.get_nowait()
            in_play = recorder.opened.qsize() + 1
            clock.now += timedelta(seconds=ROUND_SECONDS / in_play)
            result, taken = await play(host, turns, table_id)
            results.append(result)
            actions += taken
            await asyncio.sleep(0)  # as after every game (`_tournament_host.YIELD`)
        assert repository.records[tournament_id].status is Status.FINISHED
    finally:
        await subscription.stop()
        await host.stop()
        await bus.stop()
    return {"rounds": recorder.opened_games, "results": results, "actions": actions}


async def host_alone(rounds: list[RoundTable]) -> list[JSON]:
    """The peer: the same rounds on a fresh host, in the same order, no director."""
    host, bus, turns = new_host(HOST_SEEDS)
    await bus.start()
    await host.start()
    results: list[JSON] = []
    try:
        for game in rounds:
            options = table_options(game)
            table_id = await open_alone(host, "rummy", options, game.round_id, game.stacks)
            result, _ = await play(host, turns, table_id)
            results.append(result)
            await asyncio.sleep(0)  # as after every game (`_tournament_host.YIELD`)
    finally:
        await host.stop()
        await bus.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1_000)
    args, _ = parser.parse_known_args()
    # Counted and timed where the director's plan calls it (its module's reference).
    balancer = Timed(plan.rummy_rebalance)  # type: ignore[attr-defined]
    plan.rummy_rebalance = balancer  # type: ignore[attr-defined]
    # A small tournament first, through both paths: what runs once (imports, caches) is
    # paid by neither measured run.
    asyncio.run(host_alone(asyncio.run(with_director(WARM_UP_PLAYERS))["rounds"]))
    balancer.calls, balancer.seconds = 0, 0.0
    wall = time.perf_counter()
    cpu = time.process_time()
    run = asyncio.run(with_director(args.players))
    cpu_with = time.process_time() - cpu
    wall_with = time.perf_counter() - wall
    wall = time.perf_counter()
    cpu = time.process_time()
    results = asyncio.run(host_alone(run["rounds"]))
    cpu_without = time.process_time() - cpu
    wall_without = time.perf_counter() - wall
    assert results == run["results"], "the host alone did not play the same rounds"
    rounds = len(run["rounds"])
    share = (cpu_with - cpu_without) / cpu_with
    print(
        f"{args.players} players, Rummy 51 at tables of {TABLE_SIZE}, {rounds:,} rounds, "
        f"{run['actions']:,} bot actions, {balancer.calls:,} balancing decisions"
    )
    print("| run | wall s | CPU s | rounds/s | director share |")
    print("|---|---:|---:|---:|---:|")
    print(
        f"| through the director | {wall_with:.1f} | {cpu_with:.1f} | {rounds / cpu_with:,.1f} "
        f"| {share:.1%} |"
    )
    print(
        f"| peer: same rounds, host alone | {wall_without:.1f} | {cpu_without:.1f} "
        f"| {rounds / cpu_without:,.1f} | |"
    )
    rate = balancer.calls / balancer.seconds if balancer.seconds else 0.0
    print(f"\nbalancing decisions/s: {rate:,.0f} ({balancer.seconds:.2f} s in the balancer)")
    print(f"goal: director share at most 15 %: {'met' if share <= 0.15 else 'NOT met'}")


if __name__ == "__main__":
    main()
