"""The four games as the table host's contract tests see them: how to open a table of each
(options, players, stacks), who is to act and a legal action for him, read from the views,
the cards only he may see, what happens to a player who does not come back.
A test that takes the `game` fixture (registered by tests/conftest.py) runs once per game."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from croupier.table.v1 import table_pb2
from tests.support.table import random_joker_action

JSON = dict[str, Any]


@dataclass(frozen=True)
class GameAtTable:
    """One game's table for a host contract test: `options` opened with `len(players)`
    players seated in order with `stack` each."""

    name: str
    options: JSON
    players: tuple[str, ...]
    stack: int
    leaves_after_window: bool
    """Whether a player who does not come back within the reconnection window loses his
    seat: at poker he leaves (rule 58: his turns are played, he goes at the end of the
    hand), at backgammon the game is settled from gnubg's evaluation and he is unseated
    (rule 12); a rummy round (rule 43) or a Joker game cannot lose a player, so the seat
    stays and the clock plays his turns."""

    def to_act(self, public_view: JSON) -> str | None:
        """The player the table waits for, from the public view."""
        inner = public_view.get("round") if self.name == "rummy" else public_view
        if self.name in ("poker", "joker"):
            inner = public_view.get("hand")
        return None if inner is None else inner.get("to_act")

    def secrets(self, player: str, own_view: JSON) -> set[str]:
        """What only `player` may see, from his own view: the cards in his hand
        (backgammon hides nothing)."""
        if self.name == "poker":
            seats = (own_view.get("hand") or {}).get("seats", [])
            return {c for s in seats if s["player"] == player for c in s.get("hole_cards", [])}
        if self.name == "joker":
            return set((own_view.get("hand") or {}).get("own_cards", []))
        if self.name == "rummy":
            return set((own_view.get("round") or {}).get("hand", []))
        return set()

    def legal_action(self, own_view: JSON, rng: random.Random) -> JSON:
        """A legal action for the player to act, chosen by `rng` from his own view."""
        if self.name == "joker":
            return random_joker_action(own_view["legal"], rng)
        if self.name == "poker":
            legal = own_view["hand"]["legal"]
            choices = [a for a in ("check", "call", "fold") if a in legal["actions"]]
            return {"action": rng.choice(choices)}
        if self.name == "backgammon":
            legal = own_view["legal"]
            if "plays" in legal:
                return {"action": "move", "play": rng.choice(legal["plays"])}
            return {"action": rng.choice([a for a in legal["actions"] if a in ("roll", "take")])}
        legal = own_view["legal"]  # rummy (gin): never knocks, so a round runs long
        return _gin_action(own_view["round"], legal, rng)


def _gin_action(round_view: JSON, legal: JSON, rng: random.Random) -> JSON:
    """Pass the up-card, draw from the stock, discard any card (never one taken from the
    pile, which may not go straight back)."""
    actions = legal["actions"]
    if "pass" in actions:
        return {"action": "pass"}
    if "discard" in actions:
        return {"action": "discard", "card": rng.choice(round_view["hand"])}
    if "draw" in actions and "stock" in legal["draw_from"]:
        return {"action": "draw", "from": "stock"}
    return {"action": rng.choice(actions)}


async def open_over_grpc(
    stub: Any,
    game: GameAtTable,
    *,
    turn_seconds: int = 3600,
    reconnect_seconds: int = 0,
    seated: int | None = None,
) -> str:
    """A table of `game` opened through the gRPC service, its first `seated` players (all)
    seated in order; the clock as given (0: the game's default window)."""
    request = table_pb2.OpenTableRequest(game=game.name, options_json=json.dumps(game.options))
    request.clock.turn_seconds = turn_seconds
    request.clock.reconnect_seconds = reconnect_seconds
    table_id = str((await stub.OpenTable(request)).table_id)
    for seat, player in enumerate(game.players[:seated]):
        await stub.SeatPlayer(
            table_pb2.SeatPlayerRequest(
                table_id=table_id, player_id=player, seat=seat, stack=game.stack
            )
        )
    return table_id


def strings_in(value: Any) -> set[str]:
    """Every string anywhere in a decoded JSON value or a protobuf message (a card's code
    among them)."""
    if isinstance(value, Message):
        return strings_in(json_format.MessageToDict(value, preserving_proto_field_name=True))
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*map(strings_in, value.keys()), *map(strings_in, value.values()))
    if isinstance(value, list):
        return set().union(*map(strings_in, value))
    return set()


GAMES = {
    game.name: game
    for game in (
        GameAtTable("poker", {"variant": "nlhe", "blinds": [1, 2]}, ("p0", "p1"), 100, True),
        GameAtTable("backgammon", {"mode": "single", "stake": 100}, ("p0", "p1"), 0, True),
        GameAtTable("rummy", {"variant": "gin", "players": 2}, ("p0", "p1"), 500, False),
        GameAtTable("joker", {}, ("giorgi", "nika", "ana", "levan"), 0, False),
    )
}


@pytest.fixture(params=sorted(GAMES))
def game(request: pytest.FixtureRequest) -> GameAtTable:
    """Each game's table in turn."""
    return GAMES[request.param]
