"""Georgian Joker's table rules as one object, `JokerRules`, a `croupier.game.GameRules`:
four seats, one game (`core.game`), points settled with no money (rule 23).

The four seats fill up (a seat number from 0 to 3, each player once); a player may leave
only before the game starts; the first hand started starts the game (with the seated
players in seat order as the clockwise order) and every later one deals the next hand.

A finished game settles points, not money: its `HandResult` names every player with a
delta of 0 (the wallet refuses a result that names nobody, and records nothing when no
money moves) and carries the totals and the placing. A clock expiry plays what
`core.game.timeout_action` chose; every action starts a new turn (no turn keys).
"""

from __future__ import annotations

from dataclasses import replace

from croupier.game import (
    JSON,
    Event,
    HandResult,
    Malformed,
    RuleBroken,
    TableRules,
    TableTraits,
    Turn,
)
from croupier.game.commands import Act, SeatPlayer, StartHand, UnseatPlayer
from croupier.game.fairness import shuffled
from croupier.joker.core import game
from croupier.joker.core.cards import DECK
from croupier.joker.core.hand import SEATS
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
        player, number = command.player, command.seat
        if not 0 <= number < SEATS:
            raise Malformed(f"a Joker table has seats 0 to {SEATS - 1}")
        if state.game is not None or len(state.seats) >= SEATS:
            raise RuleBroken("the table is full")
        if player in state.players:
            raise RuleBroken(f"{player!r} is already seated")
        if any(n == number for n, _ in state.seats):
            raise RuleBroken(f"seat {number} is taken")
        seated = replace(state, seats=(*state.seats, (number, player)))
        return seated, [Event("player_seated", {"player": player})]

    def unseat(self, state: JokerTable, command: UnseatPlayer) -> Step:
        if state.game is not None:
            raise RuleBroken("a Joker game cannot lose a player")
        seats = tuple((n, p) for n, p in state.seats if p != command.player)
        return replace(state, seats=seats), [Event("player_left", {"player": command.player})]

    def start_hand(self, state: JokerTable, command: StartHand) -> Step:
        current = state.game
        if current is None:
            if len(state.seats) != SEATS:
                raise RuleBroken("a Joker game needs 4 seated players")
            current = game.new_game(game_id="", players=state.players, options=state.options)
        started, events = game.start_hand(current, command.seed)
        return replace(state, game=started, hands_started=state.hands_started + 1), events

    def act(self, state: JokerTable, command: Act) -> Step:
        if state.game is None:
            raise RuleBroken("the game has not started")
        new_game, events = game.act(state.game, command.player, command.action)
        return replace(state, game=new_game), events

    def can_start_hand(self, state: JokerTable) -> bool:
        if state.game is None:
            return len(state.seats) == SEATS
        return game.can_start_hand(state.game)

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
