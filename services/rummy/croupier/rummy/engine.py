"""The rummy family as the table host runs it: `ENGINE`, the table's rules
(`core.table_rules.RummyRules`, a `croupier.game.GameRules`) bound to the codec.

The engine is also the host's `ProtoCodec` (it reads `croupier.rummy.v1.Action` and writes
`croupier.rummy.v1.View`), by `croupier.rummy.codec`: this module imports no protobuf.
Registered in `croupier.table.games.ENGINE_MODULES` as "rummy".
"""

from __future__ import annotations

from croupier.rummy import codec
from croupier.rummy.core.table_rules import RummyRules

__all__ = ["ENGINE", "RummyEngine"]


class RummyEngine(RummyRules):
    action_from_message = staticmethod(codec.action_from_message)
    view_to_message = staticmethod(codec.game_view)


ENGINE = RummyEngine()
