"""A Joker table: four seats, one game, points settled with no money (rule 23).

The table's own rules around `croupier.joker.core.game`: the four seats fill up (a seat
number from 0 to 3, each player once); a player may leave only before the game starts;
the first hand started starts the game (with the seated players in seat order as the
clockwise order) and every later one deals the next hand. A finished game settles points,
not money: its `HandResult` names every player with a delta of 0 (the wallet refuses a
result that names nobody, and records nothing when no money moves) and carries the
totals and the placing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from croupier.game import JSON, Event, HandResult, Malformed, RuleBroken
from croupier.game.fairness import shuffled
from croupier.joker.core import game
from croupier.joker.core.cards import DECK
from croupier.joker.core.hand import SEATS
from croupier.joker.core.options import Options

__all__ = [
    "JokerTable",
    "act",
    "can_start_hand",
    "legal_actions",
    "public_view",
    "randomness",
    "result",
    "seat",
    "snapshot",
    "start_hand",
    "timeout_action",
    "to_act",
    "unseat",
    "view",
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


def to_act(table: JokerTable) -> list[str]:
    return [] if table.game is None else game.to_act(table.game)


def legal_actions(table: JokerTable, player: str) -> JSON:
    if table.game is None:
        return {"actions": []}
    return game.legal_actions(table.game, player)


def view(table: JokerTable, player: str) -> JSON:
    if table.game is None:
        return public_view(table)
    return game.view(table.game, player)


def public_view(table: JokerTable) -> JSON:
    if table.game is None:
        return {"players": list(table.players), "options": table.options.describe()}
    return game.public_view(table.game)


def timeout_action(table: JokerTable, player: str) -> JSON:
    if table.game is None:
        raise RuleBroken("the game has not started")
    return game.timeout_action(table.game, player)


def result(table: JokerTable) -> HandResult | None:
    if table.game is None:
        return None
    outcome = game.result(table.game)
    if outcome is None:
        return None
    return HandResult(
        hand_number=table.hands_started,
        deltas=dict.fromkeys(table.players, 0),
        details={"totals": outcome.totals, "placing": outcome.placing},
    )


def randomness(seed: bytes) -> list[str]:
    """What `seed` deals, by card code: the deck order `game.start_hand` deals from."""
    return [card.code for card in shuffled(DECK, seed, "deck")]


def snapshot(table: JokerTable) -> JSON:
    return {
        "seats": [list(s) for s in table.seats],
        "hands_started": table.hands_started,
        "game": None if table.game is None else game.snapshot(table.game),
    }
