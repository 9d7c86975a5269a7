"""Poker's table rules as one object, `PokerRules`, a `croupier.game.GameRules`: the host's
commands go to `core.table` (seats, blinds, sit-out, top-ups, settlement), and what
players and the host read from a table is answered here: views, legal actions, turns,
stacks, the finished hand's settlement, the deck a seed deals and the state's snapshot.

The finished hand's `HandResult` has exact integer deltas (final - starting stack) that sum
to zero, and the public record (pots, returned, winnings, shown hands) in `details`.
`turns`: a power does not restart the turn clock (the key counts poker actions only); the
Seal response window is a decision of the target's own, timed by `seal_window_seconds`;
the anchoring player's turn pauses meanwhile and resumes where it stopped (OQ 17).

Hand values come from the `HandRanks` the rules are made with (the phevaluator adapter,
`croupier.poker.adapters.evaluator.RANKS`, bound by `croupier.poker.engine`): the core
imports no C extension.
"""

from __future__ import annotations

from typing import Any

from croupier.game import JSON, Event, HandResult, RuleBroken, TableRules, TableTraits, Turn
from croupier.game.commands import Act, SeatPlayer, StartHand, UnseatPlayer
from croupier.game.fairness import shuffled
from croupier.poker.core import cards as C
from croupier.poker.core import hand as hand_rules
from croupier.poker.core import history, table
from croupier.poker.core.seating import PokerTable
from croupier.poker.core.state import HandRanks
from croupier.poker.core.table_options import table_options

Step = tuple[PokerTable, list[Event]]

# Entries of a hand's action list that do not end a turn: a power (§10.1) and the Anchor
# target's answer, which belongs to the window (the anchoring player's turn goes on).
NOT_DECISIONS = ("power", "seal", "no_seal")


class PokerRules(TableRules[PokerTable]):
    name = "poker"
    # 2: posts to enter, missed blinds owed by busted players, top-ups capped when they
    # land (logs written by version 1 are not replayed under these rules). 3: going
    # heads-up, the big blind moves forward (the button may not move one seat).
    version = "3"
    traits = TableTraits()

    def __init__(self, ranks: HandRanks) -> None:
        self.ranks = ranks

    def open(self, options: JSON) -> PokerTable:
        return PokerTable(options=table_options(options))

    def seat(self, state: PokerTable, command: SeatPlayer) -> Step:
        return table.seat(state, command)

    def unseat(self, state: PokerTable, command: UnseatPlayer) -> Step:
        return table.unseat(state, command.player)

    def start_hand(self, state: PokerTable, command: StartHand) -> Step:
        return table.start_hand(state, command.seed, self.ranks)

    def act(self, state: PokerTable, command: Act) -> Step:
        return table.act(state, command.player, command.action)

    def can_start_hand(self, state: PokerTable) -> bool:
        return table.can_start_hand(state)

    def stacks(self, state: PokerTable) -> dict[str, int]:
        """What each seated player would leave with now (`croupier.game.HoldsStacks`):
        his chips, top-ups pending included (during a hand: as the hand started)."""
        pending = dict(state.top_ups)
        return {p: st + pending.get(p, 0) for _, p, st in state.seats}

    def turns(self, state: PokerTable) -> list[Turn]:
        """The player to act, if any, and which decision his clock is timing.

        A power does not end a turn (§10.1), so the key counts poker actions only: the
        clock keeps running from the turn's start through the power to the poker action.
        An Anchor target in his Seal response window is timing the window (its own key,
        its own allowance: §9.4, 8 s by default, `seal_window_seconds`, no reserve). The
        anchoring player is not to act while the window is open and his key is the same
        before and after it, so the host pauses his turn and resumes it where it stopped
        (OQ 17).
        """
        hand = state.hand
        if hand is None or not state.running or hand.player_to_act is None:
            return []
        player = hand.player_to_act
        decisions = sum(1 for a in hand.actions if a.get("action") not in NOT_DECISIONS)
        nk = hand.naiko
        if nk is not None and nk.pending is not None and hand.ids[nk.pending[1]] == player:
            window_ms = state.options.seal_window_seconds * 1000
            return [Turn(player, f"{state.hand_number}/seal/{decisions}", window_ms)]
        return [Turn(player, f"{state.hand_number}/turn/{decisions}")]

    def legal_actions(self, state: PokerTable, player: str) -> JSON:
        """The hand's legal actions (rule 18) when one is running, then the table actions
        the player may take now (also between hands)."""
        legal: JSON = {"actions": []}
        if state.hand is not None and state.running:
            legal = hand_rules.legal_actions(state.hand, player)
        return {**legal, "actions": [*legal["actions"], *state.table_actions(player)]}

    def view(self, state: PokerTable, viewer: str | None) -> JSON:
        """Everything `viewer` may see: the table, his table actions, the hand as he sees
        it (a spectator: no table actions, no hidden cards)."""
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
        if viewer is not None:
            out["table_actions"] = state.table_actions(viewer)
        if state.options.config.variant == "naiko":
            out["table_destellos"] = dict(state.destellos)
            out["seal_window_seconds"] = state.options.seal_window_seconds
        if state.hand is not None:
            out["hand"] = hand_rules.view(state.hand, viewer)
        return out

    def timeout_action(self, state: PokerTable, player: str) -> JSON:
        if state.hand is None or not state.running:
            raise RuleBroken("no hand is running")
        return hand_rules.timeout_action(state.hand, player)

    def result(self, state: PokerTable) -> HandResult | None:
        hand = state.hand
        if hand is None or hand.result is None:
            return None
        res = hand.result
        # The stacks at the hand's end: what a tournament director carries to the next hand.
        keys = ("pots", "pot_shares", "returned", "winnings", "shown", "stacks")
        details = {k: res[k] for k in keys}
        details["board"] = C.names(hand.board)
        return HandResult(
            hand_number=state.hand_number, deltas=dict(res["deltas"]), details=details
        )

    def randomness(self, seed: bytes) -> list[Any]:
        return C.names(shuffled(C.DECK, seed, "deck"))

    def snapshot(self, state: PokerTable) -> JSON:
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
