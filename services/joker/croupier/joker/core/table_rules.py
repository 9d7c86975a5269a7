"""Georgian Joker's table rules as one object, `JokerRules`, a `croupier.game.GameRules`:
the host's commands go to `core.table` (four seats, one game), and what is read from a
table is answered here from `core.game`.

A finished game settles points, not money: its `HandResult` names every player with a
delta of 0 (the wallet refuses a result that names nobody, and records nothing when no
money moves) and carries the totals and the placing. A clock expiry plays what
`core.game.timeout_action` chose; every action starts a new turn (no turn keys).
"""

from __future__ import annotations

from croupier.game import JSON, Event, HandResult, RuleBroken, TableRules, TableTraits, Turn
from croupier.game.commands import Act, SeatPlayer, StartHand, UnseatPlayer
from croupier.game.fairness import shuffled
from croupier.joker.core import game, table
from croupier.joker.core.cards import DECK
from croupier.joker.core.table import JokerTable
from croupier.joker.core.table_options import table_options

Step = tuple[JokerTable, list[Event]]


class JokerRules(TableRules[JokerTable]):
    name = "joker"
    version = "1"
    traits = TableTraits()

    def open(self, options: JSON) -> JokerTable:
        return JokerTable(options=table_options(options))

    def seat(self, state: JokerTable, command: SeatPlayer) -> Step:
        return table.seat(state, command.player, command.seat)

    def unseat(self, state: JokerTable, command: UnseatPlayer) -> Step:
        return table.unseat(state, command.player)

    def start_hand(self, state: JokerTable, command: StartHand) -> Step:
        return table.start_hand(state, command.seed)

    def act(self, state: JokerTable, command: Act) -> Step:
        return table.act(state, command.player, command.action)

    def can_start_hand(self, state: JokerTable) -> bool:
        return table.can_start_hand(state)

    def turns(self, state: JokerTable) -> list[Turn]:
        return [] if state.game is None else [Turn(p) for p in game.to_act(state.game)]

    def legal_actions(self, state: JokerTable, player: str) -> JSON:
        if state.game is None:
            return {"actions": []}
        return game.legal_actions(state.game, player)

    def view(self, state: JokerTable, viewer: str | None) -> JSON:
        if state.game is None:
            return {"players": list(state.players), "options": state.options.describe()}
        if viewer is None:
            return game.public_view(state.game)
        return game.view(state.game, viewer)

    def timeout_action(self, state: JokerTable, player: str) -> JSON:
        if state.game is None:
            raise RuleBroken("the game has not started")
        return game.timeout_action(state.game, player)

    def result(self, state: JokerTable) -> HandResult | None:
        if state.game is None:
            return None
        outcome = game.result(state.game)
        if outcome is None:
            return None
        return HandResult(
            hand_number=state.hands_started,
            deltas=dict.fromkeys(state.players, 0),
            details={"totals": outcome.totals, "placing": outcome.placing},
        )

    def randomness(self, seed: bytes) -> list[str]:
        """What `seed` deals, by card code: the deck order `game.start_hand` deals from."""
        return [card.code for card in shuffled(DECK, seed, "deck")]

    def snapshot(self, state: JokerTable) -> JSON:
        return {
            "seats": [list(s) for s in state.seats],
            "hands_started": state.hands_started,
            "game": None if state.game is None else game.snapshot(state.game),
        }
