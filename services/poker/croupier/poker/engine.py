"""Poker as the table host runs it: `ENGINE`, a `croupier.game.GameRules`.

Glue only: each command goes to the table's rules (`croupier.poker.core.table`), what is
read from a table to `croupier.poker.core.table_view`, and table options are read by
`croupier.poker.core.table_options`. Hands are dealt with the showdown's hand values of
the phevaluator adapter (`croupier.poker.adapters.evaluator.RANKS`). The engine is also
the host's `ProtoCodec` (it reads `croupier.poker.v1.Action` and writes
`croupier.poker.v1.View`), by `croupier.poker.codec`.
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
from croupier.poker import codec
from croupier.poker.adapters.evaluator import RANKS
from croupier.poker.core import table, table_view
from croupier.poker.core.seating import PokerTable
from croupier.poker.core.table_options import table_options


class PokerEngine:
    name = "poker"
    # 2: posts to enter, missed blinds owed by busted players, top-ups capped when they
    # land (logs written by version 1 are not replayed under these rules). 3: going
    # heads-up, the big blind moves forward (the button may not move one seat).
    version = "3"
    traits = TableTraits()

    def open(self, options: JSON) -> PokerTable:
        return PokerTable(options=table_options(options))

    def apply(self, state: PokerTable, command: Command) -> tuple[PokerTable, list[Event]]:
        if isinstance(command, SeatPlayer):
            return table.seat(state, command)
        if isinstance(command, UnseatPlayer):
            return table.unseat(state, command.player)
        if isinstance(command, StartHand):
            return table.start_hand(state, command.seed, RANKS)
        if isinstance(command, Act):
            return table.act(state, command.player, command.action)
        raise Malformed(f"unsupported command {command!r}")

    def stacks(self, state: PokerTable) -> dict[str, int]:
        return table_view.stacks(state)

    def can_start_hand(self, state: PokerTable) -> bool:
        return table.can_start_hand(state)

    def to_act(self, state: PokerTable) -> list[str]:
        return table_view.to_act(state)

    def turn_key(self, state: PokerTable, player: str) -> str | None:
        return table_view.turn_key(state, player)

    def turn_ms(self, state: PokerTable, player: str) -> int | None:
        return table_view.turn_ms(state, player)

    def legal_actions(self, state: PokerTable, player: str) -> JSON:
        return table_view.legal_actions(state, player)

    def view(self, state: PokerTable, player: str) -> JSON:
        return table_view.view(state, player)

    def public_view(self, state: PokerTable) -> JSON:
        return table_view.public_view(state)

    def timeout_action(self, state: PokerTable, player: str) -> JSON:
        return table_view.timeout_action(state, player)

    def result(self, state: PokerTable) -> HandResult | None:
        return table_view.result(state)

    def randomness(self, seed: bytes) -> list[Any]:
        return table_view.randomness(seed)

    def snapshot(self, state: PokerTable) -> JSON:
        return table_view.snapshot(state)

    # The host's `ProtoCodec` (croupier.table.entrypoints.grpc_api), by the codec: this
    # module imports no protobuf.
    action_from_message = staticmethod(codec.action_from_message)
    view_to_message = staticmethod(codec.game_view)


ENGINE = PokerEngine()
