"""The four games as the table host's contract tests see them: how to open a table of each
(options, players, stacks), who is to act and a legal action for him, read from the views.
A test that takes the `game` fixture (registered by tests/conftest.py) runs once per game."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest

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

    def to_act(self, public_view: JSON) -> str | None:
        """The player the table waits for, from the public view."""
        inner = public_view.get("round") if self.name == "rummy" else public_view
        if self.name in ("poker", "joker"):
            inner = public_view.get("hand")
        return None if inner is None else inner.get("to_act")

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


GAMES = {
    game.name: game
    for game in (
        GameAtTable("poker", {"variant": "nlhe", "blinds": [1, 2]}, ("p0", "p1"), 100),
        GameAtTable("backgammon", {"mode": "single", "stake": 100}, ("p0", "p1"), 0),
        GameAtTable("rummy", {"variant": "gin", "players": 2}, ("p0", "p1"), 500),
        GameAtTable("joker", {}, ("giorgi", "nika", "ana", "levan"), 0),
    )
}


@pytest.fixture(params=sorted(GAMES))
def game(request: pytest.FixtureRequest) -> GameAtTable:
    """Each game's table in turn."""
    return GAMES[request.param]
