"""The games this host runs: game name → the module holding its `ENGINE`.

Adding a game is one line here plus the game's `engine.py`, whose `ENGINE` follows
`croupier.game.GameRules`. `bootstrap.build_host` loads them; the host imports no game.

A process may run only some of them (`CROUPIER_TABLE_GAMES`, parsed by `game_names`): in
production each game has its own table service, so a rollout or a crash of one game's
engine leaves the others alone, and an image loads only the engine it serves.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

from croupier.game import GameRules

ENGINE_MODULES = {
    "backgammon": "croupier.backgammon.engine",
    "joker": "croupier.joker.engine",
    "poker": "croupier.poker.engine",
    "rummy": "croupier.rummy.engine",
}

ALL_GAMES = "all"


def game_names(text: str) -> tuple[str, ...]:
    """`CROUPIER_TABLE_GAMES`: "all", or comma-separated names of `ENGINE_MODULES`."""
    if text.strip() == ALL_GAMES:
        return tuple(ENGINE_MODULES)
    names = tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    unknown = [name for name in names if name not in ENGINE_MODULES]
    if unknown or not names:
        raise ValueError(
            f"unknown game(s) {', '.join(unknown) or '(none named)'}: expected "
            f"{ALL_GAMES!r} or some of {', '.join(ENGINE_MODULES)}"
        )
    return names


def load_engines(games: Iterable[str] = tuple(ENGINE_MODULES)) -> dict[str, GameRules[Any]]:
    """The engines of `games` (every game by default), by game name."""
    return {game: importlib.import_module(ENGINE_MODULES[game]).ENGINE for game in games}
