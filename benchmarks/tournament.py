"""Tournament director: balancing decisions per second at 1,000 players.

One row per balancer, all in the same run, in process, single thread, on the same
situations: 1,000 players seated at 250 tables of 4 by the seed-000 draw
(`initial_seating`), then a random share of them out (1 to 60 %) and a random quarter of
the tables with a round running. A decision is one call that plans the moves:

1. `rummy_rebalance` (rule 42, OQ 22: the seed-000 director's balancer);
2. the peer, `tda_rebalance` (the poker director's TDA balancer: break tables, then
   balance within one), on the same tables.

Decisions/s = situations / the sum of the calls' times (`perf_counter`). The issue's other
figure, a 1,000-player bots-only Rummy 51 tournament through the director against the
host alone, is `benchmarks/rummy_tournament.py`'s. Usage:
`.venv/bin/python -m benchmarks.tournament [--situations 300] [--players 1000]`.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import time
from collections.abc import Callable, Sequence

from croupier.tournament.core.balancing import tda_rebalance
from croupier.tournament.core.seating import Plan, Table, initial_seating, rummy_rebalance

TABLE_SIZE = 4


def situations(count: int, players: int) -> list[list[Table]]:
    """`count` seatings of `players` after random eliminations, some rounds running."""
    rng = random.Random(18)
    names = [f"p{number}" for number in range(players)]
    out: list[list[Table]] = []
    for number in range(count):
        seed = hashlib.sha256(f"bench/{number}".encode()).digest()
        seating = initial_seating(names, TABLE_SIZE, seed)
        gone = set(rng.sample(names, rng.randint(1, players * 6 // 10)))
        tables = []
        for table in seating.tables:
            seats = tuple((seat, p) for seat, p in table.seats if p not in gone)
            running = len(seats) >= 2 and rng.random() < 0.25
            tables.append(Table(table.number, TABLE_SIZE, seats, running=running))
        out.append(tables)
    return out


def rate(balance: Callable[[Sequence[Table], bytes], Plan], cases: list[list[Table]]) -> float:
    seed = hashlib.sha256(b"bench-balance").digest()
    spent = 0.0
    for tables in cases:
        started = time.perf_counter()
        balance(tables, seed)
        spent += time.perf_counter() - started
    return len(cases) / spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--situations", type=int, default=300)
    parser.add_argument("--players", type=int, default=1_000)
    args = parser.parse_args()
    cases = situations(args.situations, args.players)
    ours = rate(rummy_rebalance, cases)
    peer = rate(tda_rebalance, cases)
    print(f"{args.players} players, tables of {TABLE_SIZE}, {len(cases)} situations")
    print("| balancer | decisions/s | vs peer |")
    print("|---|---:|---:|")
    print(f"| rummy_rebalance (seed 000) | {ours:,.0f} | {ours / peer:.2f}x |")
    print(f"| tda_rebalance (peer) | {peer:,.0f} | 1.00x |")


if __name__ == "__main__":
    main()
