"""Backgammon as the table host runs it (`croupier.table.engine.GameEngine`).

Translation only, no rules (they live in `croupier.backgammon.game`): two seats fill up;
each `StartHand` starts the next game with its seed (the opening roll and every later die
come from `FairStream(seed, "dice")`); `Act` carries conformance-notation actions
(`{"action": "roll"}`, `{"action": "move", "play": "8/5 6/5"}`, `double`, `take`, ...);
a clock expiry plays `{"action": "timeout"}` (OQ 5: that player loses).

Money: a single game settles after each game (capped payout, commission, rules 5 and
39-45); a series settles its stake once, when it ends (OQ 4); other games of a series
end with no money moving.

To register it, the table host adds `"backgammon": "croupier.backgammon.table_engine"` to
`croupier.table.games.ENGINE_MODULES`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from croupier.backgammon import game
from croupier.kit.fairness import FairStream
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

__all__ = ["ENGINE", "BackgammonEngine", "BackgammonTable", "parse_options"]

SEATS = 2
DEALT_DICE = 256  # how many dice of a seed a hand history lists


def parse_options(raw: JSON) -> game.Options:
    """Table options (protobuf JSON of croupier.backgammon.v1.Options, or plain values)."""
    name = str(raw.get("mode", "single")).lower()
    name = {"mode_single": "single", "mode_series": "match", "series": "match"}.get(name, name)
    if name not in ("single", "match"):
        raise Rejected("invalid_argument", f"mode must be single or series, not {name!r}")
    mode = game.Mode(name)

    def number(key: str, default: int | None) -> int | None:
        value = raw.get(key, default)
        if value is None:
            return None
        try:
            return int(value)  # protobuf JSON writes int64 as text
        except (TypeError, ValueError):
            raise Rejected("invalid_argument", f"{key} must be an integer") from None

    options = game.Options(
        mode=mode,
        stake=number("stake", 0) or 0,
        max_win=number("max_win", None),
        beaver=bool(raw.get("beaver", False)) and mode == "single",
        points=number("points", 0) or 0,
        crawford=bool(raw.get("crawford", True)),
        tournament=bool(raw.get("tournament", False)),
    )
    options.validate()
    return options


@dataclass(frozen=True)
class BackgammonTable:
    options: game.Options
    seats: tuple[str, ...] = ()
    game: game.State | None = None
    games_started: int = 0


class BackgammonEngine:
    name = "backgammon"
    version = "1"

    def open(self, options: JSON) -> BackgammonTable:
        return BackgammonTable(options=parse_options(options))

    def apply(
        self, state: BackgammonTable, command: Command
    ) -> tuple[BackgammonTable, list[Event]]:
        if isinstance(command, SeatPlayer):
            if state.game is not None or len(state.seats) >= SEATS:
                raise Rejected("failed_precondition", "the table is full")
            if command.player in state.seats:
                raise Rejected("failed_precondition", f"{command.player!r} is already seated")
            seated = replace(state, seats=(*state.seats, command.player))
            return seated, [Event("player_seated", {"player": command.player})]
        if isinstance(command, UnseatPlayer):
            if state.game is not None and not self._finished(state):
                raise Rejected("failed_precondition", "a player cannot leave a running game")
            seats = tuple(p for p in state.seats if p != command.player)
            left = replace(state, seats=seats, game=None)
            return left, [Event("player_left", {"player": command.player})]
        if isinstance(command, StartHand):
            if not self.can_start_hand(state):
                raise Rejected("failed_precondition", "no game can start now")
            current = state.game or game.new_table(state.options, state.seats)
            started, events = game.start_game(current, seed=command.seed)
            return replace(state, game=started, games_started=state.games_started + 1), events
        if isinstance(command, Act):
            if state.game is None:
                raise Rejected("failed_precondition", "the game has not started")
            new_game, events = game.apply(state.game, command.player, command.action)
            return replace(state, game=new_game), events
        raise Rejected("invalid_argument", f"unsupported command {command!r}")

    @staticmethod
    def _finished(state: BackgammonTable) -> bool:
        return state.game is not None and state.game.phase in ("idle", "game_over")

    def can_start_hand(self, state: BackgammonTable) -> bool:
        if len(state.seats) != SEATS:
            return False
        if state.game is None:
            return True
        g = state.game
        if g.phase not in ("idle", "game_over"):
            return False
        return not (g.options.mode == "match" and g.match_winner is not None)

    def to_act(self, state: BackgammonTable) -> list[str]:
        if state.game is None or state.game.actor is None:
            return []
        return [state.game.players[state.game.actor]]

    def legal_actions(self, state: BackgammonTable, player: str) -> JSON:
        if state.game is None:
            return {"actions": []}
        return game.legal_actions(state.game, player)

    def view(self, state: BackgammonTable, player: str) -> JSON:
        view = self.public_view(state)
        if state.game is not None and player in state.game.players:
            view["legal"] = game.legal_actions(state.game, player)
        return view

    def public_view(self, state: BackgammonTable) -> JSON:
        if state.game is None:
            return {"players": list(state.seats), "phase": "idle"}
        return game.public_view(state.game)

    def timeout_action(self, state: BackgammonTable, player: str) -> JSON:
        if state.game is None:
            raise Rejected("failed_precondition", "the game has not started")
        return game.timeout_action(state.game, player)

    def result(self, state: BackgammonTable) -> HandResult | None:
        g = state.game
        if g is None or g.phase != "game_over" or g.last_result is None:
            return None
        r = g.last_result
        details: JSON = {
            "winner": g.players[r.winner],
            "result": r.result,
            "cube": r.cube,
            "points": r.points,
            "how": r.how,
        }
        if g.options.mode == "match":
            details["score"] = {g.players[0]: g.score[0], g.players[1]: g.score[1]}
            details["match_winner"] = None if g.match_winner is None else g.players[g.match_winner]
        money = game.settlement(g)
        if money is None:
            return HandResult(hand_number=state.games_started, deltas={}, details=details)
        winner, loser, m = money
        details["amount"] = m.amount
        return HandResult(
            hand_number=state.games_started,
            deltas={g.players[winner]: m.winner_delta, g.players[loser]: m.loser_delta},
            commission={g.players[winner]: m.commission_total},
            details=details,
        )

    def randomness(self, seed: bytes) -> list[int]:
        """The dice a seed gives, in order (opening roll first; ties are re-rolled)."""
        stream = FairStream(seed, "dice")
        return [stream.die() for _ in range(DEALT_DICE)]

    def snapshot(self, state: BackgammonTable) -> JSON:
        return {
            "seats": list(state.seats),
            "games_started": state.games_started,
            "game": None if state.game is None else game.snapshot(state.game),
        }


ENGINE = BackgammonEngine()
