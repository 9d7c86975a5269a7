"""Georgian Joker as the table host runs it: `ENGINE`, a `croupier.game.GameRules`.

Glue only: each command goes to the table's rules (`croupier.joker.core.table`), table
options are read by `croupier.joker.core.table_options`, and a clock expiry plays what
`table.timeout_action` chose. The engine is also the host's `ProtoCodec` (it reads
`croupier.joker.v1.Action` and writes `croupier.joker.v1.View`) and its `JsonViewCodec`
(it writes the view JSON), both by `croupier.joker.codec`.
"""

from __future__ import annotations

from typing import Any

from croupier.game import (
    JSON,
    Act,
    Command,
    Event,
    HandResult,
    Malformed,
    SeatPlayer,
    StartHand,
    TableTraits,
    UnseatPlayer,
)
from croupier.joker import codec
from croupier.joker.core import table
from croupier.joker.core.table import JokerTable
from croupier.joker.core.table_options import table_options


class JokerEngine:
    name = "joker"
    version = "1"
    traits = TableTraits()

    def open(self, options: JSON) -> JokerTable:
        return JokerTable(options=table_options(options))

    def apply(self, state: JokerTable, command: Command) -> tuple[JokerTable, list[Event]]:
        if isinstance(command, SeatPlayer):
            return table.seat(state, command.player, command.seat)
        if isinstance(command, UnseatPlayer):
            return table.unseat(state, command.player)
        if isinstance(command, StartHand):
            return table.start_hand(state, command.seed)
        if isinstance(command, Act):
            return table.act(state, command.player, command.action)
        raise Malformed(f"unsupported command {command!r}")

    def can_start_hand(self, state: JokerTable) -> bool:
        return table.can_start_hand(state)

    def to_act(self, state: JokerTable) -> list[str]:
        return table.to_act(state)

    def legal_actions(self, state: JokerTable, player: str) -> JSON:
        return table.legal_actions(state, player)

    def view(self, state: JokerTable, player: str) -> JSON:
        return table.view(state, player)

    def public_view(self, state: JokerTable) -> JSON:
        return table.public_view(state)

    def timeout_action(self, state: JokerTable, player: str) -> JSON:
        return table.timeout_action(state, player)

    def result(self, state: JokerTable) -> HandResult | None:
        return table.result(state)

    def randomness(self, seed: bytes) -> list[Any]:
        return table.randomness(seed)

    def snapshot(self, state: JokerTable) -> JSON:
        return table.snapshot(state)

    # The table host's `ProtoCodec` and `JsonViewCodec` (its gRPC entry point reads them),
    # by the codec: this module imports no protobuf.
    action_from_message = staticmethod(codec.action_from_message)
    view_to_message = staticmethod(codec.game_view)
    view_json = staticmethod(codec.view_json)


ENGINE = JokerEngine()
