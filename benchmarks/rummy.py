"""Rummy engine: exact meld arrangement speed, and bots-only gin rounds per second.

Rows, all in the same run, in-process, single thread:

1. Meld arrangement (least deadwood, exact), random Rummy 51 hands of 14 cards with at
   most 2 jokers (two packs + 4 jokers): `croupier.rummy.core.arrangement.best_arrangement`
   vs the peer `brute_force_min_deadwood` (every valid meld from an exhaustive subset
   search, then every disjoint combination), on the same hands; answers must agree.
2. The same for random 11-card Gin hands, with a second peer: OpenSpiel's C++
   `GinRummyUtils.best_meld_group` (pyspiel), the least-deadwood meld group of all 11.
3. Bots-only Gin rounds per second: our engine dealt from seeds, both seats played by
   `croupier.rummy.tools.bots.gin_bot_action`, vs the peer OpenSpiel `gin_rummy` (C++) played by
   two `SimpleGinRummyBot`s (a different, also greedy policy).

Timings are wall-clock per call (`perf_counter`). Each hand is timed `--repeat` times
(default 3); p50, p99 and worst use the least of those calls (the algorithm is
deterministic, so the least is its cost without preemption by other processes on a shared
machine); "p99, first call" is the single-call figure, with whatever noise the machine
adds, and "p99 CPU, first call" the same calls in thread CPU time (`thread_time`), which
preemption does not inflate. Arrangements/s = hands / sum of the least times. Target:
p99 < 2 ms. Usage:
`.venv/bin/python -m benchmarks.rummy [--hands 3000] [--rounds 200]`.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from croupier.rummy.core import gin, rummy51, table
from croupier.rummy.core.arrangement import best_arrangement, brute_force_min_deadwood
from croupier.rummy.core.cards import Card, card_name, is_joker, standard_deck
from croupier.rummy.core.variant import VariantRules
from croupier.rummy.tools.bots import gin_bot_action


def _hands(
    rng: random.Random, deck: list[Card], size: int, count: int, max_jokers: int
) -> list[list[Card]]:
    hands: list[list[Card]] = []
    while len(hands) < count:
        hand = rng.sample(deck, size)
        if sum(is_joker(card) for card in hand) <= max_jokers:
            hands.append(hand)
    return hands


def _time_each(
    function: Callable[[list[Card]], int], hands: Sequence[list[Card]], repeat: int
) -> tuple[list[float], list[float], list[float], list[int]]:
    """Per hand: the first call's wall time and CPU time, the least wall time of `repeat`
    calls, and the answer."""
    first: list[float] = []
    first_cpu: list[float] = []
    least: list[float] = []
    answers: list[int] = []
    for hand in hands:
        times = []
        cpu = 0.0
        for attempt in range(repeat):
            cpu_started = time.thread_time()
            started = time.perf_counter()
            answer = function(hand)
            times.append(time.perf_counter() - started)
            if attempt == 0:
                cpu = time.thread_time() - cpu_started
        answers.append(answer)
        first.append(times[0])
        first_cpu.append(cpu)
        least.append(min(times))
    return first, first_cpu, least, answers


def _p99(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def _row(
    name: str, timing: tuple[list[float], list[float], list[float], list[int]], agree: str
) -> str:
    first, first_cpu, least, _ = timing
    rate = len(least) / sum(least)
    worst = max(least)
    return (
        f"| {name} | {len(least)} | {rate:,.0f} | {statistics.median(least) * 1e6:,.0f} | "
        f"{_p99(least) * 1e6:,.0f} | {worst * 1e6:,.0f} | {_p99(first) * 1e6:,.0f} | "
        f"{_p99(first_cpu) * 1e6:,.0f} | {agree} |"
    )


def _ours(rules: VariantRules) -> Callable[[list[Card]], int]:
    return lambda hand: best_arrangement(hand, rules.melds, rules.values).deadwood


def _brute(rules: VariantRules) -> Callable[[list[Card]], int]:
    return lambda hand: brute_force_min_deadwood(hand, rules.melds, rules.values)


def _openspiel_gin() -> Callable[[list[Card]], int] | None:
    try:
        from pyspiel import gin_rummy
    except ImportError:  # pragma: no cover - open-spiel is a dev dependency
        return None
    utils = gin_rummy.GinRummyUtils(13, 4, 10)
    suits, ranks = "scdh", "A23456789TJQK"

    def convert(card: Card) -> int:
        name = card_name(card)
        return suits.index(name[1]) * 13 + ranks.index(name[0])

    def deadwood(hand: list[Card]) -> int:
        cards = [convert(card) for card in hand]
        melded = {card for meld in utils.best_meld_group(cards) for card in meld}
        return int(sum(min(10, card % 13 + 1) for card in cards if card not in melded))

    return deadwood


def arrangement_rows(hands_count: int, brute_count: int, repeat: int) -> list[str]:
    rng = random.Random(20261129)
    rows = []
    for label, rules, deck, size, jokers in (
        ("Rummy 51, 14 cards, ≤2 jokers", rummy51.RULES, standard_deck(2, 4), 14, 2),
        ("Gin, 11 cards", gin.RULES, standard_deck(), 11, 0),
    ):
        hands = _hands(rng, deck, size, hands_count, jokers)
        timing = _time_each(_ours(rules), hands, repeat)
        ours = timing[3]
        rows.append(_row(f"{label}: ours (exact DP)", timing, "—"))
        timing = _time_each(_brute(rules), hands[:brute_count], repeat)
        same = sum(a == b for a, b in zip(ours, timing[3], strict=False))
        rows.append(_row(f"{label}: peer brute force", timing, f"{same}/{len(timing[3])}"))
        if rules is gin.RULES:
            peer = _openspiel_gin()
            if peer is not None:
                timing = _time_each(peer, hands, repeat)
                same = sum(a == b for a, b in zip(ours, timing[3], strict=True))
                name = f"{label}: peer OpenSpiel best_meld_group (C++)"
                rows.append(_row(name, timing, f"{same}/{len(timing[3])}"))
    return rows


def _our_round(seed: bytes) -> int:
    state = table.start(gin.RULES, ["a", "b"], "b", seed)
    moves = 0
    while state.result is None:
        assert isinstance(state, type(state))
        action = gin_bot_action(state)  # type: ignore[arg-type]
        player = state.to_act
        assert player is not None
        state, _ = table.apply(state, player, action)
        moves += 1
    return moves


def _spiel_round(game: Any, bots: list[Any], rng: random.Random) -> int:
    state = game.new_initial_state()
    for bot in bots:
        bot.restart()
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            continue
        player = state.current_player()
        action = bots[player].step(state)
        for other, bot in enumerate(bots):
            if other != player:
                bot.inform_action(state, player, action)
        state.apply_action(action)
        moves += 1
    return moves


def round_rows(rounds: int) -> list[str]:
    rows = []
    started = time.perf_counter()
    moves = sum(_our_round(hashlib.sha256(f"bench-{k}".encode()).digest()) for k in range(rounds))
    elapsed = time.perf_counter() - started
    rows.append(
        f"| ours: engine + gin bot (Python) | {rounds} | {rounds / elapsed:,.1f} | "
        f"{moves / rounds:.1f} |"
    )
    try:
        import pyspiel
    except ImportError:  # pragma: no cover
        return rows
    game = pyspiel.load_game("gin_rummy")
    params = game.get_parameters()
    bots = [pyspiel.make_simple_gin_rummy_bot(params, player) for player in range(2)]
    rng = random.Random(7)
    started = time.perf_counter()
    moves = sum(_spiel_round(game, bots, rng) for _ in range(rounds))
    elapsed = time.perf_counter() - started
    rows.append(
        f"| peer: OpenSpiel gin_rummy + SimpleGinRummyBot (C++) | {rounds} | "
        f"{rounds / elapsed:,.1f} | {moves / rounds:.1f} |"
    )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="rummy engine benchmark")
    parser.add_argument("--hands", type=int, default=3000, help="hands per arrangement row")
    parser.add_argument("--brute", type=int, default=300, help="hands for the brute-force peer")
    parser.add_argument("--repeat", type=int, default=3, help="timed calls per hand")
    parser.add_argument("--rounds", type=int, default=200, help="bots-only gin rounds per row")
    args, _ = parser.parse_known_args(argv)
    print("### Meld arrangement (least deadwood)\n")
    print(
        "| implementation | hands | arrangements/s | p50 µs | p99 µs | worst µs | "
        "p99 µs, first call | p99 CPU µs, first call | agrees with ours |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for row in arrangement_rows(args.hands, args.brute, args.repeat):
        print(row, flush=True)
    print("\n### Bots-only Gin rounds\n")
    print("| implementation | rounds | rounds/s | actions per round |")
    print("|---|---|---|---|")
    for row in round_rows(args.rounds):
        print(row, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
