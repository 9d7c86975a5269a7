"""Helpers for the poker tournament core's tests: terms, and hands whose results the test
chooses (who loses how many chips to whom), reported to `hand_finished`."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from typing import Any

from croupier.tournament.core.blinds import BlindStructure, Break, Level, preset
from croupier.tournament.core.payouts import PayoutBracket
from croupier.tournament.core.poker_config import Kind, PokerConfig
from croupier.tournament.core.poker_decisions import Deal, Decision
from croupier.tournament.core.poker_tournament import (
    PokerTournament,
    Step,
    hand_finished,
    players_left,
    tick,
)

SEED = hashlib.sha256(b"poker tournament tests").digest()
STACK = 1_000
# Four places paid from 4 entries, the winner alone below.
PAYOUTS = (PayoutBracket(2, 3, (10_000,)), PayoutBracket(4, 10_000, (4_000, 3_000, 2_000, 1_000)))


def structure_with_break() -> BlindStructure:
    """Three 10-minute levels, a 5-minute break after level 2."""
    return BlindStructure(
        (
            Level(10, 20, 0, "none", 10),
            Level(15, 30, 0, "none", 10),
            Level(20, 40, 0, "none", 10),
        ),
        (Break(2, 5),),
    )


def config(
    kind: Kind = "scheduled", players: int = 9, table_size: int = 3, **terms: Any
) -> PokerConfig:
    fields: dict[str, Any] = {
        "structure": preset("turbo", STACK),
        "buy_in": 100,
        "payouts": PAYOUTS,
        **terms,
    }
    return PokerConfig(kind, table_size, STACK, max_players=players, **fields)


def names(count: int) -> list[str]:
    return [f"p{number}" for number in range(1, count + 1)]


def deals(step: Step) -> list[Deal]:
    return [d for d in step.decisions if isinstance(d, Deal)]


def of_type(decisions: Sequence[Decision], kind: type[Decision]) -> list[Any]:
    return [d for d in decisions if isinstance(d, kind)]


def report(
    state: PokerTournament,
    table: int,
    now: int,
    losses: Mapping[str, int | None] | None = None,
    winner: str | None = None,
) -> Step:
    """`table`'s hand ends: each player of `losses` loses that many chips (None: all) to
    `winner` (default: the dealt-in player with most chips not losing)."""
    players = state.in_hand[table]
    before = {p: state.chips[p] for p in players}
    after = dict(before)
    lost = {p: before[p] if n is None else n for p, n in (losses or {}).items()}
    if winner is None:
        winner = max((p for p in players if p not in lost), key=lambda p: before[p])
    for player, chips in lost.items():
        after[player] -= chips
        after[winner] += chips
    return hand_finished(state, table, before, after, now)


def bust(state: PokerTournament, table: int, now: int, *players: str) -> Step:
    return report(state, table, now, dict.fromkeys(players))


def random_hand(state: PokerTournament, table: int, now: int, rng: random.Random) -> Step:
    """A hand with a random result: one player loses to another, now and then all he has."""
    players = state.in_hand[table]
    loser, winner = rng.sample(players, 2)
    chips = state.chips[loser]
    lost = chips if rng.random() < 0.3 else rng.randint(0, chips)
    return report(state, table, now, {loser: lost}, winner)


def run_to_end(state: PokerTournament, first: Step, rng: random.Random) -> list[Step]:
    """Every hand dealt, played at random in the order dealt, until `Finished`; the
    breaks' waits are passed with `tick`."""
    steps = [first]
    queue = [d.table for d in deals(first)]
    now = first.state.started_at
    while not state.finished:
        now += 30
        step = random_hand(state, queue.pop(0), now, rng) if queue else tick(state, now)
        steps.append(step)
        state = step.state
        queue.extend(d.table for d in deals(step))
        assert players_left(state) >= 1
    return steps
