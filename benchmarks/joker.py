"""Joker engine throughput: bots-only complete 24-hand standard games per second.

Every bot plays a random legal action (trump, bid, card and joker use drawn from
`legal_actions`), in-process, single thread. Rows, all in the same run on the same seeds:

- `engine, full game`: `croupier.joker.core.game` — deal from seed, immutable states, events,
  hand scoring, premia/moshla settlement and ledger, the sheet at game end;
- `engine, hands only (peer)`: the same loop on `croupier.joker.core.hand` without the game
  layer: no scoring, no premia, no ledger, no events naming, no sheet;
- `naive baseline (peer)`: our own throwaway mutable implementation of the same rules in
  this file (lists changed in place, no validation, no events, no scoring): a floor for
  what pure-Python trick play costs.

Usage: `.venv/bin/python -m benchmarks.joker [--games N]` (default 60 games per row).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import time
from collections.abc import Callable
from typing import Any

from croupier.game.fairness import shuffled
from croupier.joker.core import game, hand
from croupier.joker.core.cards import DECK, Card, Suit
from croupier.joker.core.options import GameType
from croupier.joker.core.schedule import schedule
from croupier.joker.core.tricks import JokerUse, Play, legal_cards, trick_winner

PLAYERS = ("a", "b", "c", "d")
SLOTS = schedule(GameType.STANDARD)


def seed(game_no: int, hand_no: int) -> bytes:
    return hashlib.sha256(f"bench-{game_no}-{hand_no}".encode()).digest()


def pick(legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    kind = legal["actions"][0]
    if kind == "trump":
        return {"action": "trump", "suit": rng.choice(legal["suits"])}
    if kind == "bid":
        return {"action": "bid", "tricks": rng.choice(legal["tricks"])}
    code = rng.choice(legal["cards"])
    action: dict[str, Any] = {"action": "play", "card": code}
    if code[0] == "X":
        action["joker"] = rng.choice(legal["joker"])
        if "suits" in legal:
            action["suit"] = rng.choice(legal["suits"])
    return action


def full_game(game_no: int) -> int:
    rng = random.Random(game_no)
    state = game.new_game(game_id=f"g{game_no}", players=PLAYERS)
    hands = 0
    while not state.over:
        state, _ = game.start_hand(state, seed(game_no, hands))
        hands += 1
        while state.hand_running:
            (player,) = game.to_act(state)
            state, _ = game.act(state, player, pick(game.legal_actions(state, player), rng))
    outcome = game.result(state)
    assert outcome is not None
    return hands


def hands_only(game_no: int) -> int:
    rng = random.Random(game_no)
    for slot in SLOTS:
        deck = shuffled(DECK, seed(game_no, slot.index), "deck")
        state = hand.deal(deck, slot.index % 4, slot.cards)
        while state.turn is not None:
            seat = state.turn
            command = hand.parse_command(pick(hand.legal_actions(state, seat), rng))
            state, _ = hand.apply(state, seat, command)
    return len(SLOTS)


def naive_game(game_no: int) -> int:
    """Mutable lists, no checks: deal, trump, bids (dealer rule), random legal tricks."""
    rng = random.Random(game_no)
    suits = list(Suit)
    for slot in SLOTS:
        n, dealer = slot.cards, slot.index % 4
        deck = shuffled(DECK, seed(game_no, slot.index), "deck")
        held: list[list[Card]] = [deck[s * n : (s + 1) * n] for s in range(4)]
        trump = rng.choice([*suits, None]) if n == 9 else deck[4 * n].suit
        bids: list[int] = []
        for i in range(4):
            options = list(range(n + 1))
            if i == 3 and 0 <= n - sum(bids) <= n:
                options.remove(n - sum(bids))
            bids.append(rng.choice(options))
        taken = [0] * 4
        leader = (dealer + 1) % 4
        for _ in range(n):
            trick: list[Play] = []
            for offset in range(4):
                seat = (leader + offset) % 4
                chosen = rng.choice(legal_cards(held[seat], trick, trump))
                held[seat].remove(chosen)
                if chosen.is_joker:
                    if trick:
                        trick.append(
                            Play(seat, chosen, rng.choice((JokerUse.HIGH, JokerUse.UNDER)))
                        )
                    else:
                        use = rng.choice((JokerUse.HIGH, JokerUse.TAKE))
                        trick.append(Play(seat, chosen, use, rng.choice(suits)))
                else:
                    trick.append(Play(seat, chosen))
            leader = trick_winner(trick, trump)
            taken[leader] += 1
    return len(SLOTS)


def measure(run: Callable[[int], int], games: int) -> tuple[float, int]:
    start = time.perf_counter()
    hands = sum(run(g) for g in range(games))
    return time.perf_counter() - start, hands


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60, help="games per row (default 60)")
    args = parser.parse_args(argv)
    rows = [
        ("engine, full game", full_game),
        ("engine, hands only (peer)", hands_only),
        ("naive baseline (peer)", naive_game),
    ]
    results = [(name, *measure(run, args.games)) for name, run in rows]
    base = results[0][1]
    print(f"Joker: bots-only 24-hand standard games, random legal play, {args.games} games/row")
    print()
    print("| implementation | games | hands | seconds | games/s | time vs full game |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, seconds, hands in results:
        print(
            f"| {name} | {args.games} | {hands} | {seconds:.2f} | {args.games / seconds:.1f} "
            f"| {seconds / base:.2f}x |"
        )


if __name__ == "__main__":
    main()
