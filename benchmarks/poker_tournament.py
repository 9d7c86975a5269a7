"""Poker tournament director (issue 25): a 2,000-player bots-only NLHE tournament to the end.

In process, single thread, no I/O: the director's pure core
(`croupier.tournament.core.poker_tournament`) seats 2,000 players at tables of 9, and
every hand it deals is played by the real poker engine (`croupier.poker.core`:
`deal_from_seed`, `apply`) with the poker tools' `RandomBot` deciding from each seat's own
view; each result goes back to `hand_finished`, whose moves, busts, hand-for-hand and next
deals drive the run. Simulated time: a hand takes `HAND_SECONDS` at its table, and hands
end in time order (a heap), so tables play side by side as in a real room and the levels
and breaks of the clock fall between them. The blinds: the `turbo` preset for the
starting stack, then levels doubling every 5 minutes until the big blind is a tenth of all
chips (the preset ends at half a starting stack, which 2,000 players' chips outgrow).

The engine has no dead small blind: where the director's small blind is a dead seat, the
player before the big blind posts it (the big blind, which the engine gets right, is the
one the benchmark follows).

Two tables, both from one run of `make bench`:

1. The director's pure core against the bare engine (the least of `--repeat` runs, 5 by
   default: the work is the same each time, so the least is its cost without another
   process's preemption): `process_time` of the whole run against the peer, the same
   hands (players, stacks, button, seed, bots' random choices) replayed through the
   engine and bots without the director; both turn each hand into the engine's table
   (`engine_table`); share = (with - without) / with. The core's own calls timed alone
   give the second share column. Balancing decisions/s: calls to the TDA balancer
   (`tda_rebalance_checked`, counted and timed through the core's reference to it) per
   second spent in them.
2. The whole director (`_poker_director`: its service on the in-memory repository and
   wallet, each hand a table of the real table host in process, the hands' ends read
   from the bus) against the same hands opened and played on a fresh host alone (their
   end stacks checked equal): the issue's figure, the director's share of the CPU of the
   hands played (goal: at most 15 %).

Measured (2026-12-06, the shared 2-core machine, 2,000 players, least of 5 runs):
1. 2,394 hands, 1,376 hands/s with the core against 1,771 without (this machine ran about
   half as fast as on 2026-12-05, when it measured 2,380 against 3,290): share 22 %
   (the core's own calls 19 %). A random bot's hand costs the bare engine about 0.6 ms
   here: against the engine alone, with no host, log or bus, the core's share is larger
   than the issue's figure below.
2. About 2,300 hands: 20.2 s of CPU through the director against 17.8 s on the host
   alone: share 12.0 % (goal met). The pairs of runs in turn scatter widely on this
   shared machine (6-19 %), hence the least of 5; a least of 3 measured 11.6 % once and
   18.5 % another time. Before the settings built the core's terms once, registration
   read its players once, the seats after a hand were spliced where tables changed and
   the director's consumer passed over the table events it does not take undecoded
   (`types=`), the same measure gave 17-22 %; before the record kept its seats from hand
   to hand and the director took the core's config from its state, 30 %.

Usage: `.venv/bin/python -m benchmarks.poker_tournament [--players 2000]`.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import heapq
import random
import time
from collections.abc import Mapping
from typing import Any, NamedTuple

from benchmarks import _poker_director
from benchmarks._tournament_host import Timed
from croupier.poker.adapters.evaluator import RANKS
from croupier.poker.core.deal import deal_from_seed
from croupier.poker.core.hand import apply, view
from croupier.poker.core.rules import TableConfig
from croupier.poker.tools.bots import RandomBot
from croupier.tournament.core import poker_advance
from croupier.tournament.core import poker_tournament as core
from croupier.tournament.core.blinds import BlindStructure, Level, preset, to_table_config_fields
from croupier.tournament.core.payouts import PayoutBracket
from croupier.tournament.core.poker_config import PokerConfig
from croupier.tournament.core.poker_decisions import BreakStarted, Deal, Finished, Moves

TABLE_SIZE = 9
STACK = 10_000
HAND_SECONDS = 45
EXTRA_LEVEL_MINUTES = 5
WARM_UP_PLAYERS = 20


class Hand(NamedTuple):
    """One hand as the director dealt it: what the peer replays without the director.
    Both runs turn it into the engine's table (`play`), as a table host would."""

    level: Level
    players: tuple[tuple[str, int], ...]
    """In seat order, with their chips at the hand's start."""
    big_blind: int
    """The big blind's index in `players`."""
    number: int


def structure(players: int) -> BlindStructure:
    turbo = preset("turbo", STACK)
    levels = list(turbo.levels)
    while levels[-1].big_blind * 10 < players * STACK:
        last = levels[-1]
        levels.append(
            Level(
                2 * last.small_blind,
                2 * last.big_blind,
                2 * last.ante,
                last.ante_kind,
                EXTRA_LEVEL_MINUTES,
            )
        )
    return BlindStructure(tuple(levels), turbo.breaks)


def payouts() -> tuple[PayoutBracket, ...]:
    """300 places paid from 300 entries (15 % of 2,000): the money bubble is
    hand-for-hand at many tables."""
    top = [2126, 1200, 800, *[300] * 6]  # 10,000 basis points with 291 places of 14
    return (
        PayoutBracket(2, 9, (10_000,)),
        PayoutBracket(10, 299, (4_000, 2_200, 1_300, 800, 600, 400, 300, 200, 200)),
        PayoutBracket(300, 10_000, (*top, *[14] * 291)),
    )


def hand_for(deal: Deal, chips: Mapping[str, int], number: int) -> Hand:
    """The hand the director's `Deal` asks for: its players in seat order with their chips."""
    players = tuple((p, chips[p]) for p in deal.players)
    return Hand(deal.level, players, deal.seats.index(deal.blinds.big_blind), number)


def engine_table(hand: Hand) -> tuple[TableConfig, int, bytes]:
    """The engine's table for `hand`: the level's blinds, the button index that puts the
    big blind where the director put it, and the hand's seed."""
    fields = to_table_config_fields(hand.level)
    config = TableConfig(
        "nlhe",
        fields["small_blind"],
        fields["big_blind"],
        fields["ante"],
        big_blind_ante=fields["big_blind_ante"],
    )
    count = len(hand.players)
    big = hand.big_blind
    button = (big - 1) % 2 if count == 2 else (big - 2) % count
    return config, button, hashlib.sha256(b"hand %d" % hand.number).digest()


def play(hand: Hand) -> tuple[dict[str, int], int]:
    """The hand played to its end by random bots (their choices drawn from the hand's seed):
    the stacks after it and the decisions taken."""
    config, button, seed = engine_table(hand)
    state = deal_from_seed(config, hand.players, button, seed, ranks=RANKS)
    rng = random.Random(seed)
    bots = {p: RandomBot(p, rng) for p, _ in hand.players}
    decisions = 0
    while state.result is None:
        player = state.ids[state.to_act]
        action = bots[player].decide({"hand": view(state, player)})
        assert action is not None, f"{player} had nothing to do on his turn"
        state, _ = apply(state, player, action)
        decisions += 1
    stacks: dict[str, int] = state.result["stacks"]
    return stacks, decisions


def tournament(players: int) -> dict[str, Any]:
    """The tournament through the director to `Finished`, with its hands recorded."""
    config = PokerConfig(
        "scheduled",
        TABLE_SIZE,
        STACK,
        structure(players),
        buy_in=100,
        max_players=players,
        payouts=payouts(),
    )
    names = [f"bot{number}" for number in range(players)]
    seed = hashlib.sha256(b"benchmark tournament").digest()
    core_seconds = 0.0
    started = time.process_time()
    step = core.start(config, names, seed, 0)
    core_seconds += time.process_time() - started
    hands: list[Hand] = []
    ends: list[tuple[int, int]] = []  # (when, table): hands in play, in time order
    pending: dict[int, tuple[Hand, dict[str, int]]] = {}
    counts = {"moves": 0, "decisions": 0, "breaks": 0}
    now = 0
    while True:
        for decision in step.decisions:
            if isinstance(decision, Deal):
                hand = hand_for(decision, step.state.chips, len(hands))
                hands.append(hand)
                stacks, taken = play(hand)
                counts["decisions"] += taken
                pending[decision.table] = (hand, stacks)
                heapq.heappush(ends, (now + HAND_SECONDS, decision.table))
            elif isinstance(decision, Moves):
                counts["moves"] += len(decision.plan.moves)
            elif isinstance(decision, BreakStarted):
                counts["breaks"] += 1
                heapq.heappush(ends, (now + decision.seconds, 0))
            elif isinstance(decision, Finished):
                return {"hands": hands, "core": core_seconds, **counts}
        now, table = heapq.heappop(ends)
        started = time.process_time()
        if table == 0:  # a break's end
            step = core.tick(step.state, now)
        else:
            hand, stacks = pending.pop(table)
            before = dict(hand.players)
            step = core.hand_finished(step.state, table, before, stacks, now)
        core_seconds += time.process_time() - started


def replay(hands: list[Hand]) -> None:
    """The peer: the same hands through the engine and bots, no director."""
    for hand in hands:
        play(hand)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=5)
    args, _ = parser.parse_known_args()
    # Counted and timed where the core calls it (its module's reference).
    balancer = Timed(poker_advance.tda_rebalance_checked)  # type: ignore[attr-defined]
    poker_advance.tda_rebalance_checked = balancer  # type: ignore[attr-defined]
    runs = []
    for _ in range(max(1, args.repeat)):  # the same work each time: the least is its cost
        wall = time.perf_counter()
        cpu = time.process_time()
        run = tournament(args.players)
        cpu_with = time.process_time() - cpu
        wall_with = time.perf_counter() - wall
        cpu = time.process_time()
        replay(run["hands"])
        runs.append((cpu_with, wall_with, run["core"], time.process_time() - cpu))
    cpu_with, wall_with, core_seconds = min(runs)[:3]
    cpu_without = min(r[3] for r in runs)
    hands = len(run["hands"])
    share = (cpu_with - cpu_without) / cpu_with
    print(
        f"{args.players} players, tables of {TABLE_SIZE}, {hands:,} hands, "
        f"{run['decisions']:,} bot decisions, {run['moves']:,} players moved, "
        f"{balancer.calls // len(runs):,} balancer calls, {run['breaks']} breaks; "
        f"least of {len(runs)} runs"
    )
    print("| run | wall s | CPU s | hands/s | director share |")
    print("|---|---:|---:|---:|---:|")
    print(
        f"| with the director | {wall_with:.2f} | {cpu_with:.2f} | {hands / cpu_with:,.0f} "
        f"| {share:.1%} (core calls alone: {core_seconds / cpu_with:.1%}) |"
    )
    print(f"| peer: same hands, no director | | {cpu_without:.2f} | {hands / cpu_without:,.0f} | |")
    rate = balancer.calls / balancer.seconds if balancer.seconds else 0.0
    print(f"\nbalancing decisions/s: {rate:,.0f} ({balancer.seconds:.2f} s in the balancer)")
    # Not the goal, which is the whole director's against the table host (below):
    # the bare engine here has no host, log or bus, so the core's share is larger.
    through_the_director(args.players, args.repeat)


def through_the_director(players: int, repeat: int) -> None:
    """The second table: the whole director, each hand on the table host in process
    (`_poker_director`), against the same hands on the host alone; each side the least
    of `repeat` runs, taken in turn (the work is the same each time: the least is its
    cost without another process's preemption on the shared machine)."""
    terms = _poker_director.settings(players, TABLE_SIZE, STACK, structure(players), payouts())
    # A small tournament first, through both paths: what runs once (imports, caches) is
    # paid by neither measured run.
    warm_up = _poker_director.settings(
        WARM_UP_PLAYERS, TABLE_SIZE, STACK, structure(WARM_UP_PLAYERS), payouts()
    )
    first = asyncio.run(_poker_director.with_director(WARM_UP_PLAYERS, warm_up, HAND_SECONDS))
    asyncio.run(_poker_director.host_alone(first["hands"]))
    with_runs: list[tuple[float, float]] = []
    alone_runs: list[tuple[float, float]] = []
    for _ in range(max(1, repeat)):
        wall = time.perf_counter()
        cpu = time.process_time()
        run = asyncio.run(_poker_director.with_director(players, terms, HAND_SECONDS))
        with_runs.append((time.process_time() - cpu, time.perf_counter() - wall))
        wall = time.perf_counter()
        cpu = time.process_time()
        ended = asyncio.run(_poker_director.host_alone(run["hands"]))
        alone_runs.append((time.process_time() - cpu, time.perf_counter() - wall))
        assert ended == run["results"], "the host alone did not play the same hands"
    (cpu_with, wall_with), (cpu_without, wall_without) = min(with_runs), min(alone_runs)
    hands = len(run["hands"])
    share = (cpu_with - cpu_without) / cpu_with
    each = ", ".join(
        f"{(w - a) / w:.1%}" for (w, _), (a, _) in zip(with_runs, alone_runs, strict=True)
    )
    print(
        f"\nThrough the director's service, each hand a table of the host in process: "
        f"{hands:,} hands, {run['decisions']:,} bot decisions; least of {len(with_runs)} runs "
        f"(the director's share in each pair of runs: {each})"
    )
    print("| run | wall s | CPU s | hands/s | director share |")
    print("|---|---:|---:|---:|---:|")
    print(
        f"| through the director | {wall_with:.1f} | {cpu_with:.1f} | {hands / cpu_with:,.0f} "
        f"| {share:.1%} |"
    )
    print(
        f"| peer: same hands, host alone | {wall_without:.1f} | {cpu_without:.1f} "
        f"| {hands / cpu_without:,.0f} | |"
    )
    print(f"goal: director share at most 15 %: {'met' if share <= 0.15 else 'NOT met'}")


if __name__ == "__main__":
    main()
