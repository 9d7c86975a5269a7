"""Poker as the table host runs it: `ENGINE`, the table's rules (`core.table_rules.PokerRules`,
a `croupier.game.GameRules`) bound to their adapters.

Hands are dealt with the showdown's hand values of the phevaluator adapter
(`croupier.poker.adapters.evaluator.RANKS`). The engine is also the host's `ProtoCodec`
(it reads `croupier.poker.v1.Action` and writes `croupier.poker.v1.View`), by
`croupier.poker.codec`: this module imports no protobuf.
"""

from __future__ import annotations

from croupier.poker import codec
from croupier.poker.adapters.evaluator import RANKS
from croupier.poker.core.table_rules import PokerRules


class PokerEngine(PokerRules):
    action_from_message = staticmethod(codec.action_from_message)
    view_to_message = staticmethod(codec.game_view)


ENGINE = PokerEngine(RANKS)
