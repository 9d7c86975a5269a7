"""A Joker table: four seats, one game, points settled with no money (rule 23).

The table's own rules around `croupier.joker.core.game`: the four seats fill up (a seat
number from 0 to 3, each player once); a player may leave only before the game starts;
the first hand started starts the game (with the seated players in seat order as the
clockwise order) and every later one deals the next hand. What is read from a table
(turns, views, the settlement) is `core.table_rules`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from croupier.game import JSON, Event, Malformed, RuleBroken
from croupier.joker.core import game
from croupier.joker.core.hand import SEATS
from croupier.joker.core.options import Options

__all__ = [
    "JokerTable",
    "act",
    "can_start_hand",
    "seat",
    "start_hand",
    "unseat",
]


@dataclass(frozen=True)
class JokerTable:
    options: Options
    # Seat number → player; the game's clockwise order is the order of seat numbers.
    seats: tuple[tuple[int, str], ...] = ()
    game: game.GameState | None = None
    hands_started: int = 0

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(player for _, player in sorted(self.seats))


def seat(table: JokerTable, player: str, number: int) -> tuple[JokerTable, list[Event]]:
    if not 0 <= number < SEATS:
        raise Malformed(f"a Joker table has seats 0 to {SEATS - 1}")
    if table.game is not None or len(table.seats) >= SEATS:
        raise RuleBroken("the table is full")
    if player in table.players:
        raise RuleBroken(f"{player!r} is already seated")
    if any(n == number for n, _ in table.seats):
        raise RuleBroken(f"seat {number} is taken")
    seated = replace(table, seats=(*table.seats, (number, player)))
    return seated, [Event("player_seated", {"player": player})]


def unseat(table: JokerTable, player: str) -> tuple[JokerTable, list[Event]]:
    if table.game is not None:
        raise RuleBroken("a Joker game cannot lose a player")
    seats = tuple((n, p) for n, p in table.seats if p != player)
    return replace(table, seats=seats), [Event("player_left", {"player": player})]


def start_hand(table: JokerTable, seed: bytes) -> tuple[JokerTable, list[Event]]:
    current = table.game
    if current is None:
        if len(table.seats) != SEATS:
            raise RuleBroken("a Joker game needs 4 seated players")
        current = game.new_game(game_id="", players=table.players, options=table.options)
    started, events = game.start_hand(current, seed)
    return replace(table, game=started, hands_started=table.hands_started + 1), events


def act(table: JokerTable, player: str, action: JSON) -> tuple[JokerTable, list[Event]]:
    if table.game is None:
        raise RuleBroken("the game has not started")
    new_game, events = game.act(table.game, player, action)
    return replace(table, game=new_game), events


def can_start_hand(table: JokerTable) -> bool:
    if table.game is None:
        return len(table.seats) == SEATS
    return game.can_start_hand(table.game)
