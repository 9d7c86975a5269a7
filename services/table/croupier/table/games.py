"""The games this host runs: game name → the module holding its `ENGINE`.

Adding a game is one line here plus the game's `engine.py`, whose `ENGINE` follows
`croupier.game.GameRules`. `bootstrap.build_host` loads them; the host imports no game.
"""

from __future__ import annotations

import importlib
from typing import Any

from croupier.game import GameRules

ENGINE_MODULES = {
    "backgammon": "croupier.backgammon.engine",
    "joker": "croupier.joker.engine",
    "poker": "croupier.poker.engine",
    "rummy": "croupier.rummy.engine",
}


def load_engines() -> dict[str, GameRules[Any]]:
    engines: dict[str, GameRules[Any]] = {}
    for game, module in ENGINE_MODULES.items():
        engines[game] = importlib.import_module(module).ENGINE
    return engines
