"""Check the poker evaluator's ordering against an independent one (eval7) on random hands.

    .venv/bin/python scripts/poker_evaluator_check.py [HANDS] [--plo HANDS] [--seed N]

Hold'em (7, 6 and 5 cards): our value (phevaluator) and eval7's must order every hand the
same way: the map ours -> eval7 must be a function (equal hands stay equal) and strictly
increasing (a stronger hand stays stronger). Omaha: our value must equal the best eval7 value
over the 60 ways to take exactly 2 hole + 3 board cards, compared through the same map.
Categories are checked against eval7's hand type names.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from itertools import combinations

import eval7

from croupier.poker.adapters.evaluator import category, holdem_value, omaha_value
from croupier.poker.core import cards as C

E7 = [eval7.Card(n) for n in C.NAMES]
E7_TYPES = {
    "High Card": "high_card",
    "Pair": "one_pair",
    "Two Pair": "two_pair",
    "Trips": "three_of_a_kind",
    "Straight": "straight",
    "Flush": "flush",
    "Full House": "full_house",
    "Quads": "four_of_a_kind",
    "Straight Flush": "straight_flush",
}


def order_problems(pairs: dict[int, set[int]]) -> list[str]:
    """Problems with the map ours -> theirs (empty when it is a strictly increasing function)."""
    problems = [
        f"our value {k} maps to several eval7 values {sorted(v)}"
        for k, v in pairs.items()
        if len(v) > 1
    ]
    last = None
    for k in sorted(pairs):
        v = min(pairs[k])
        if last is not None and v <= last[1]:
            problems.append(f"order differs: ours {last[0]} < {k} but eval7 {last[1]} >= {v}")
        last = (k, v)
    return problems


def check_holdem(hands: int, rng: random.Random, size: int = 7) -> tuple[int, list[str]]:
    pairs: dict[int, set[int]] = {}
    problems: list[str] = []
    evaluate = eval7.evaluate
    handtype = eval7.handtype
    for _ in range(hands):
        cards = rng.sample(range(52), size)
        ours = holdem_value(cards[:2], cards[2:])
        theirs = evaluate([E7[c] for c in cards])
        pairs.setdefault(ours, set()).add(theirs)
        cat = category(ours)
        want = E7_TYPES[handtype(theirs)]
        if cat != want and not (cat == "royal_flush" and want == "straight_flush"):
            problems.append(f"category {cat} vs eval7 {want} for {C.names(cards)}")
    return len(pairs), problems + order_problems(pairs)


def check_omaha(hands: int, rng: random.Random) -> list[str]:
    pairs: dict[int, set[int]] = {}
    problems: list[str] = []
    evaluate = eval7.evaluate
    for _ in range(hands):
        cards = rng.sample(range(52), 9)
        hole, board = cards[:4], cards[4:]
        ours = omaha_value(hole, board)
        theirs = max(
            evaluate([E7[c] for c in (*h, *b)])
            for h in combinations(hole, 2)
            for b in combinations(board, 3)
        )
        pairs.setdefault(ours, set()).add(theirs)
    return problems + order_problems(pairs)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hands", nargs="?", type=int, default=1_000_000)
    parser.add_argument("--plo", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    failed = False
    for size, count in ((7, args.hands), (6, args.hands // 10), (5, args.hands // 10)):
        started = time.perf_counter()
        distinct, problems = check_holdem(count, rng, size)
        took = time.perf_counter() - started
        print(
            f"{size}-card Hold'em: {count} hands, {distinct} distinct values, "
            f"{len(problems)} problems ({took:.1f}s)"
        )
        for p in problems[:5]:
            print("  ", p)
        failed |= bool(problems)
    started = time.perf_counter()
    problems = check_omaha(args.plo, rng)
    print(
        f"Omaha (2 hole + 3 board): {args.plo} hands, {len(problems)} problems "
        f"({time.perf_counter() - started:.1f}s)"
    )
    for p in problems[:5]:
        print("  ", p)
    failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
