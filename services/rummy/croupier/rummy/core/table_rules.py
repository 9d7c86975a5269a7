"""The rummy family's table rules as one object, `RummyRules`, a `croupier.game.GameRules`:
the host's commands go to `core.rummy_table` (seats and stacks, rounds, chips settlement,
the auto-player and rule 46's cancel), and what is read from a table is answered here:
the turn, views, the round's settlement, the decks a seed deals, the snapshot.

Views: the player's round view (own hand, discard pile, table melds, card counts) with the
player's legal actions, the seats and stacks, and `last_round` (the previous round's result
and settlement: the host deals the next round as soon as one ends).
"""

from __future__ import annotations

from typing import Any

from croupier.game import JSON, Event, HandResult, RuleBroken, TableRules, TableTraits, Turn
from croupier.game.commands import Act, SeatPlayer, StartHand, UnseatPlayer
from croupier.game.fairness import shuffled
from croupier.rummy.core import rummy_table, table
from croupier.rummy.core.cards import card_names, standard_deck
from croupier.rummy.core.knock_game import GinState
from croupier.rummy.core.rummy_table import RummyTable
from croupier.rummy.core.variants import VARIANTS

Step = tuple[RummyTable, list[Event]]


class RummyRules(TableRules[RummyTable]):
    name = "rummy"
    # 2: Rummy 40's discard ban, rule 9 eliminations, rule 46's cancel and per-turn clock
    # keys, and the dealer moving past eliminated seats deal version-1 logs differently.
    version = "2"
    # Seed 000 rule 45: after a timeout the player is in auto-player mode: the host plays
    # their turns (draw from the stock, discard it), paced by its clock, until they act.
    traits = TableTraits(auto_play_after_timeout=True)

    def open(self, options: JSON) -> RummyTable:
        return rummy_table.open_table(options)

    def seat(self, state: RummyTable, command: SeatPlayer) -> Step:
        return rummy_table.seat(state, command.player, command.stack)

    def unseat(self, state: RummyTable, command: UnseatPlayer) -> Step:
        return rummy_table.unseat(state, command.player)

    def start_hand(self, state: RummyTable, command: StartHand) -> Step:
        return rummy_table.start_round(state, command.seed)

    def act(self, state: RummyTable, command: Act) -> Step:
        return rummy_table.act(
            state, command.player, command.action, by_clock=command.by_clock, at_ms=command.at_ms
        )

    def can_start_hand(self, state: RummyTable) -> bool:
        return rummy_table.can_start_round(state)

    def turns(self, state: RummyTable) -> list[Turn]:
        """The player to act, and the turn his clock is timing.

        Rule 45 times a whole turn (draw, melds, lay-offs, discard), and the defender's
        lay-offs after a knock are one turn: the key is the number of the turn, so the
        host restarts the clock only when the turn passes to someone else. Each turn has
        its own key: the host resumes a paused turn with the same key where it stopped, so
        a key repeated on the seat's next turn (the round and seat once were the key) gave
        that turn only what the last one left, and an automatic turn none (runaway).
        """
        if state.round is None or not rummy_table.round_running(state):
            return []
        player = state.round.to_act
        return [] if player is None else [Turn(player, str(state.turns))]

    def legal_actions(self, state: RummyTable, player: str) -> JSON:
        if state.round is None:
            return {"actions": []}
        return table.legal_actions(state.round, player)

    def view(self, state: RummyTable, viewer: str | None) -> JSON:
        seen = _table_part(state)
        if state.round is not None:
            seen["round"] = table.view(state.round, viewer or "")
            if viewer is not None:
                seen["legal"] = table.legal_actions(state.round, viewer)
        return seen

    def timeout_action(self, state: RummyTable, player: str) -> JSON:
        if state.round is None:
            raise RuleBroken("no round is running")
        return table.timeout_action(state.round, player)

    def result(self, state: RummyTable) -> HandResult | None:
        """The round's settlement: chips only, no commission (Σ deltas = 0)."""
        outcome = None if state.round is None else state.round.result
        if outcome is None or state.settlement is None or state.last_round is None:
            return None
        return HandResult(
            hand_number=state.rounds_started,
            deltas=dict(state.settlement.deltas),
            details=dict(state.last_round),
        )

    def randomness(self, seed: bytes) -> list[Any]:
        """The deck orders a seed gives, one per deck the variants use (dealt in that order)."""
        shapes = sorted({(rules.decks, rules.jokers) for rules in VARIANTS.values()})
        return [
            {
                "decks": decks,
                "jokers": jokers,
                "order": card_names(shuffled(standard_deck(decks, jokers), seed, "deck")),
            }
            for decks, jokers in shapes
        ]

    def snapshot(self, state: RummyTable) -> JSON:
        snap: JSON = {
            **_table_part(state),
            "rounds_started": state.rounds_started,
            "turns": state.turns,
            "auto_players": sorted(state.auto.players),
            "all_automatic_since_ms": state.auto.all_since_ms,
            "round": None,
        }
        if state.round is not None:
            r = state.round
            snap["round"] = {
                "kind": "gin" if isinstance(r, GinState) else "laydown",
                "players": list(r.players),
                "dealer": r.dealer,
                "hands": {p: card_names(r.hands[i]) for i, p in enumerate(r.players)},
                "stock": card_names(r.stock),
                "discard_pile": card_names(r.discard_pile),
                "melds": [meld.to_json() for meld in r.table_melds],
                "phase": str(r.phase),
                "turn": r.turn,
                "result": None if r.result is None else str(r.result.ending),
            }
        return snap


def _table_part(state: RummyTable) -> JSON:
    return {
        "variant": state.rules.name,
        "players": state.players,
        "seats": list(state.seats),
        "stacks": dict(zip(state.seats, state.stacks, strict=True)),
        "round_fee": state.round_fee,
        "chip_ratio": state.chip_ratio,
        "round_number": state.rounds_started,
        "dealer": None if state.round is None else state.round.dealer,
        "last_round": state.last_round,
    }
