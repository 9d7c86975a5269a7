"""Backgammon as the table host runs it: `ENGINE`, the table's rules
(`core.table_rules.BackgammonRules`, a `croupier.game.GameRules`) bound to their adapters.

Before a player leaves a running game the host asks `evaluate_abandonment`, GNU
Backgammon's evaluation by `croupier.backgammon.adapters.gnubg_bridge` (I/O, so never
inside `apply`), and logs it in the `UnseatPlayer` that `core.abandonment` settles from.
The engine is also the host's `ProtoCodec` (it reads `croupier.backgammon.v1.Action` and
writes `croupier.backgammon.v1.View`), by `croupier.backgammon.codec`: this module imports
no protobuf.
"""

from __future__ import annotations

from croupier.backgammon import codec
from croupier.backgammon.adapters.gnubg_bridge import GnubgError
from croupier.backgammon.adapters.gnubg_bridge import evaluate_abandonment as gnubg_evaluation
from croupier.backgammon.core.abandonment import at_stake
from croupier.backgammon.core.table import BackgammonTable
from croupier.backgammon.core.table_rules import BackgammonRules
from croupier.game import JSON, RuleBroken


class BackgammonEngine(BackgammonRules):
    action_from_message = staticmethod(codec.action_from_message)
    view_to_message = staticmethod(codec.game_view)

    async def evaluate_abandonment(self, state: BackgammonTable, player: str) -> JSON | None:
        """GNU Backgammon's evaluation of `player` leaving now (the host's hook)."""
        g = state.game
        if g is None or player not in g.players or not at_stake(g):
            return None
        try:
            return await gnubg_evaluation(g, player)
        except (GnubgError, OSError, ValueError, KeyError) as exc:
            raise RuleBroken(f"the position could not be evaluated now: {exc}") from exc


ENGINE = BackgammonEngine()
