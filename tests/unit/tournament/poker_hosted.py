"""Poker bots for the director's tests: they play every tournament hand open on an
in-process table host (`hosted.Hosted`) from their own seat's view, acting at once, and
push hard (all-in now and then, folding to half the bets) so that a tournament ends in a
few dozen hands."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from croupier.poker.core.seating import PokerTable
from croupier.poker.engine import ENGINE
from croupier.poker.tools.bots import hand_of
from tests.unit.tournament.hosted import Hosted

#: More actions than any hand takes: a hand still running after them is a bug.
MAX_ACTIONS = 500
#: Naiko's Seal window is timed by the host's clock: the bots let it pass.
SEAL_WINDOW_MS = 10_000
WALL_CLOCK_PAUSE_SECONDS = 0.05


ALL_IN = 0.1
FOLD_TO_A_BET = 0.5


def pushing_action(view: dict[str, Any], player: str, rng: random.Random) -> dict[str, Any]:
    """All-in now and then when allowed; facing a bet, fold half the time, else call; else
    check (no powers)."""
    hand = hand_of(view)
    assert hand is not None and hand.get("to_act") == player
    actions = list(hand["legal"]["actions"])
    if "allin" in actions and rng.random() < ALL_IN:
        return {"action": "allin"}
    if "call" in actions and rng.random() < FOLD_TO_A_BET:
        return {"action": "fold"}
    kind = next(kind for kind in ("call", "check", "fold") if kind in actions)
    return {"action": kind}


def poker_tables(hosted: Hosted) -> list[str]:
    """The poker tables whose hand is in play."""
    running = []
    for table_id in hosted.host.table_ids():
        state = hosted.host._table(table_id).state.engine_state
        if isinstance(state, PokerTable) and state.running:
            running.append(table_id)
    return running


async def play_hand(hosted: Hosted, table_id: str, rng: random.Random) -> None:
    """The bots play the table's hand to its end."""
    for count in range(MAX_ACTIONS):
        state: PokerTable = hosted.host._table(table_id).state.engine_state
        if not state.running:
            return
        turns = ENGINE.turns(state)
        if not turns:  # a timed window (Naiko's Seal) is open: let the host's clock pass it
            if hosted.clock is not None:
                hosted.clock.advance(SEAL_WINDOW_MS)
            else:
                await asyncio.sleep(WALL_CLOCK_PAUSE_SECONDS)
            continue
        player = turns[0].player
        action = pushing_action(ENGINE.view(state, player), player, rng)
        await hosted.host.act(table_id, player, f"bot-{table_id}-{count}", action)
    raise AssertionError(f"the hand at {table_id} never ended")
