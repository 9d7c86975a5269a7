"""What players and the host read from a poker table: views, legal actions, clocks, stacks,
the finished hand's settlement, the deck a seed deals and the state's snapshot.

The finished hand's `HandResult` has exact integer deltas (final - starting stack) that sum
to zero, and the public record (pots, returned, winnings, shown hands) in `details`.
`turn_key` and `turn_ms` (the host's `TracksTurns`, `TimesTurns`): a power does not restart
the turn clock; the Seal response window is a decision of the target's own, timed by
`seal_window_seconds`; the anchoring player's turn pauses meanwhile and resumes where it
stopped (OQ 17).
"""

from __future__ import annotations

from typing import Any

from croupier.game import JSON, HandResult, RuleBroken
from croupier.game.fairness import shuffled
from croupier.poker.core import cards as C
from croupier.poker.core import hand as hand_rules
from croupier.poker.core import history
from croupier.poker.core.seating import PokerTable

# Entries of a hand's action list that do not end a turn: a power (§10.1) and the Anchor
# target's answer, which belongs to the window (the anchoring player's turn goes on).
NOT_DECISIONS = ("power", "seal", "no_seal")


def stacks(state: PokerTable) -> dict[str, int]:
    """What each seated player would leave with now (`croupier.game.HoldsStacks`):
    his chips, top-ups pending included (during a hand: as the hand started)."""
    pending = dict(state.top_ups)
    return {p: st + pending.get(p, 0) for _, p, st in state.seats}


def to_act(state: PokerTable) -> list[str]:
    if state.hand is None or not state.running:
        return []
    actor = state.hand.player_to_act
    return [] if actor is None else [actor]


def turn_key(state: PokerTable, player: str) -> str | None:
    """Which decision `player`'s clock is timing (`croupier.game.TracksTurns`).

    A power does not end a turn (§10.1), so the key counts poker actions only: the
    clock keeps running from the turn's start through the power to the poker action.
    An Anchor target in his Seal response window is timing the window (its own key,
    its own allowance: `turn_ms`). The anchoring player is not in `to_act` while the
    window is open and his key is the same before and after it, so the host pauses
    his turn and resumes it where it stopped (OQ 17).
    """
    hand = state.hand
    if hand is None or not state.running or player not in hand.ids:
        return None
    nk = hand.naiko
    decisions = sum(1 for a in hand.actions if a.get("action") not in NOT_DECISIONS)
    if nk is not None and nk.pending is not None and hand.ids[nk.pending[1]] == player:
        return f"{state.hand_number}/seal/{decisions}"
    return f"{state.hand_number}/turn/{decisions}"


def turn_ms(state: PokerTable, player: str) -> int | None:
    """The host's `TimesTurns`: the allowance of `player`'s current decision when it is
    not the table's clock: the Seal response window (§9.4: 8 s by default,
    `seal_window_seconds`), timed for the target only and with no reserve."""
    hand = state.hand
    if hand is None or not state.running or hand.naiko is None:
        return None
    pending = hand.naiko.pending
    if pending is not None and hand.ids[pending[1]] == player:
        return state.options.seal_window_seconds * 1000
    return None


def legal_actions(state: PokerTable, player: str) -> JSON:
    """The hand's legal actions (rule 18) when one is running, then the table actions
    the player may take now (also between hands)."""
    legal: JSON = {"actions": []}
    if state.hand is not None and state.running:
        legal = hand_rules.legal_actions(state.hand, player)
    return {**legal, "actions": [*legal["actions"], *state.table_actions(player)]}


def view(state: PokerTable, player: str) -> JSON:
    """Everything `player` may see: the table, his table actions, the hand as he sees it."""
    return _view(state, player)


def public_view(state: PokerTable) -> JSON:
    """What a spectator may see."""
    return _view(state, None)


def _view(state: PokerTable, player: str | None) -> JSON:
    top_ups = dict(state.top_ups)
    out: JSON = {
        "hand_number": state.hand_number,
        "table": [
            {
                "seat": n,
                "player": p,
                "stack": st,
                "leaving": p in state.leaving,
                "bot": p in state.bots,
                "waiting_for_big_blind": p in state.waiting,
                "sitting_out": p in state.sitting_out,
                "posting_blind": p in state.posting,
                "owes": list(state.owed(p)),
                "pending_top_up": top_ups.get(p, 0),
            }
            for n, p, st in state.seats
        ],
    }
    if player is not None:
        out["table_actions"] = state.table_actions(player)
    if state.options.config.variant == "naiko":
        out["table_destellos"] = dict(state.destellos)
        out["seal_window_seconds"] = state.options.seal_window_seconds
    if state.hand is not None:
        out["hand"] = hand_rules.view(state.hand, player)
    return out


def timeout_action(state: PokerTable, player: str) -> JSON:
    if state.hand is None or not state.running:
        raise RuleBroken("no hand is running")
    return hand_rules.timeout_action(state.hand, player)


def result(state: PokerTable) -> HandResult | None:
    hand = state.hand
    if hand is None or hand.result is None:
        return None
    res = hand.result
    details = {k: res[k] for k in ("pots", "pot_shares", "returned", "winnings", "shown")}
    details["board"] = C.names(hand.board)
    return HandResult(hand_number=state.hand_number, deltas=dict(res["deltas"]), details=details)


def randomness(seed: bytes) -> list[Any]:
    return C.names(shuffled(C.DECK, seed, "deck"))


def snapshot(state: PokerTable) -> JSON:
    return {
        "seats": [list(s) for s in state.seats],
        "destellos": dict(state.destellos),
        "button": state.button,
        "big_blind": state.big_blind,
        "hand_number": state.hand_number,
        "leaving": sorted(state.leaving),
        "bots": sorted(state.bots),
        "waiting": sorted(state.waiting),
        "sitting_out": sorted(state.sitting_out),
        "missed": sorted(state.missed),
        "missed_big": sorted(state.missed_big),
        "posting": sorted(state.posting),
        "top_ups": dict(state.top_ups),
        "hand": None if state.hand is None else history.record(state.hand),
    }
