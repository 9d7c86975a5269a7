"""Georgian Joker as the table host runs it: `ENGINE`, the table's rules
(`core.table_rules.JokerRules`, a `croupier.game.GameRules`) bound to the codec.

The engine is also the host's `ProtoCodec` (it reads `croupier.joker.v1.Action` and writes
`croupier.joker.v1.View`) and its `JsonViewCodec` (it writes the view JSON), both by
`croupier.joker.codec`: this module imports no protobuf.
"""

from __future__ import annotations

from croupier.joker import codec
from croupier.joker.core.table_rules import JokerRules


class JokerEngine(JokerRules):
    action_from_message = staticmethod(codec.action_from_message)
    view_to_message = staticmethod(codec.game_view)
    view_json = staticmethod(codec.view_json)


ENGINE = JokerEngine()
