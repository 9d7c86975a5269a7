"""Georgian Joker as the table host runs it (`croupier.table.engine.GameEngine`).

Translation only, no rules: the table's four seats fill up, the first `StartHand` starts
the game (`croupier.joker.game`) and every later one deals the next hand; clock expiries
play `game.timeout_action`. A finished game settles points, not money: its `HandResult`
has no deltas and carries the totals and the placing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from croupier.joker import game
from croupier.joker.cards import DECK
from croupier.joker.conformance import parse_options
from croupier.joker.errors import IllegalAction
from croupier.joker.hand import SEATS
from croupier.joker.options import GameType, Options
from croupier.kit.fairness import shuffled
from croupier.kit.scenario import MalformedScenario
from croupier.table.engine import (
    JSON,
    Act,
    Command,
    Event,
    HandResult,
    Rejected,
    SeatPlayer,
    StartHand,
    UnseatPlayer,
)

GAME_TYPES = {
    "standard": GameType.STANDARD,
    "nines": GameType.NINES,
    "GAME_TYPE_STANDARD": GameType.STANDARD,
    "GAME_TYPE_NINES": GameType.NINES,
}


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


def _options(raw: JSON) -> Options:
    values = {k: v for k, v in raw.items() if k not in ("game_type", "turn_seconds")}
    values.pop("reconnect_seconds", None)
    if "khishti" in values and isinstance(values["khishti"], str):
        values["khishti"] = int(values["khishti"])  # protobuf JSON writes int64 as text
    try:
        options = parse_options(values)
    except MalformedScenario as exc:
        raise Rejected("invalid_argument", str(exc)) from exc
    kind = str(raw.get("game_type", "standard"))
    if kind not in GAME_TYPES:
        raise Rejected("invalid_argument", "game_type must be 'standard' or 'nines'")
    return replace(options, game_type=GAME_TYPES[kind])


def _rejected(exc: IllegalAction) -> Rejected:
    return Rejected(exc.status, exc.message)


def _events(events: Sequence[Any]) -> list[Event]:
    return [Event(e.type, dict(e.data)) for e in events]


class JokerEngine:
    name = "joker"
    version = "1"

    def open(self, options: JSON) -> JokerTable:
        return JokerTable(options=_options(options))

    def apply(self, state: JokerTable, command: Command) -> tuple[JokerTable, list[Event]]:
        if isinstance(command, SeatPlayer):
            return self._seat(state, command), [Event("player_seated", {"player": command.player})]
        if isinstance(command, UnseatPlayer):
            if state.game is not None:
                raise Rejected("failed_precondition", "a Joker game cannot lose a player")
            seats = tuple((n, p) for n, p in state.seats if p != command.player)
            return replace(state, seats=seats), [Event("player_left", {"player": command.player})]
        if isinstance(command, StartHand):
            return self._start(state, command.seed)
        if isinstance(command, Act):
            if state.game is None:
                raise Rejected("failed_precondition", "the game has not started")
            try:
                new_game, events = game.act(state.game, command.player, command.action)
            except IllegalAction as exc:
                raise _rejected(exc) from exc
            return replace(state, game=new_game), _events(events)
        raise Rejected("invalid_argument", f"unsupported command {command!r}")

    @staticmethod
    def _seat(state: JokerTable, command: SeatPlayer) -> JokerTable:
        if not 0 <= command.seat < SEATS:
            raise Rejected("invalid_argument", f"a Joker table has seats 0 to {SEATS - 1}")
        if state.game is not None or len(state.seats) >= SEATS:
            raise Rejected("failed_precondition", "the table is full")
        if command.player in state.players:
            raise Rejected("failed_precondition", f"{command.player!r} is already seated")
        if any(n == command.seat for n, _ in state.seats):
            raise Rejected("failed_precondition", f"seat {command.seat} is taken")
        return replace(state, seats=(*state.seats, (command.seat, command.player)))

    def _start(self, state: JokerTable, seed: bytes) -> tuple[JokerTable, list[Event]]:
        current = state.game
        if current is None:
            if len(state.seats) != SEATS:
                raise Rejected("failed_precondition", "a Joker game needs 4 seated players")
            current = game.new_game(game_id="", players=state.players, options=state.options)
        try:
            started, events = game.start_hand(current, seed)
        except IllegalAction as exc:
            raise _rejected(exc) from exc
        return replace(state, game=started, hands_started=state.hands_started + 1), _events(events)

    def can_start_hand(self, state: JokerTable) -> bool:
        if state.game is None:
            return len(state.seats) == SEATS
        return game.can_start_hand(state.game)

    def to_act(self, state: JokerTable) -> list[str]:
        return [] if state.game is None else game.to_act(state.game)

    def legal_actions(self, state: JokerTable, player: str) -> JSON:
        if state.game is None:
            return {"actions": []}
        return game.legal_actions(state.game, player)

    def view(self, state: JokerTable, player: str) -> JSON:
        if state.game is None:
            return self.public_view(state)
        return game.view(state.game, player)

    def public_view(self, state: JokerTable) -> JSON:
        if state.game is None:
            return {"players": list(state.players), "options": state.options.describe()}
        return game.public_view(state.game)

    def timeout_action(self, state: JokerTable, player: str) -> JSON:
        if state.game is None:
            raise Rejected("failed_precondition", "the game has not started")
        try:
            return game.timeout_action(state.game, player)
        except IllegalAction as exc:
            raise _rejected(exc) from exc

    def result(self, state: JokerTable) -> HandResult | None:
        if state.game is None:
            return None
        outcome = game.result(state.game)
        if outcome is None:
            return None
        return HandResult(
            hand_number=state.hands_started,
            deltas={},
            details={"totals": outcome.totals, "placing": outcome.placing},
        )

    def randomness(self, seed: bytes) -> list[Any]:
        return [card.code for card in shuffled(DECK, seed, "deck")]

    def snapshot(self, state: JokerTable) -> JSON:
        return {
            "seats": [list(seat) for seat in state.seats],
            "hands_started": state.hands_started,
            "game": None if state.game is None else game.snapshot(state.game),
        }


ENGINE = JokerEngine()
