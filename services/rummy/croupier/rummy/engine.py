"""The rummy family as the table host runs it: `ENGINE`, a `croupier.game.GameRules`.

Glue only: table options are read by `croupier.rummy.core.table_options`, each command
goes to the table's rules (`croupier.rummy.core.rummy_table`: seats and stacks, rounds,
chips settlement, the auto-player and rule 46's cancel), and clock expiries play the
auto-player's `timeout_action`. The engine is also the host's `ProtoCodec` (it reads
`croupier.rummy.v1.Action` and writes `croupier.rummy.v1.View`), by `croupier.rummy.codec`.

Registered in `croupier.table.games.ENGINE_MODULES` as "rummy".
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
from croupier.rummy import codec
from croupier.rummy.core import rummy_table
from croupier.rummy.core.rummy_table import RummyTable

__all__ = ["ENGINE", "RummyEngine"]


class RummyEngine:
    name = "rummy"
    # 2: Rummy 40's discard ban, rule 9 eliminations, rule 46's cancel and per-turn clock
    # keys, and the dealer moving past eliminated seats deal version-1 logs differently.
    version = "2"
    # Seed 000 rule 45: after a timeout the player is in auto-player mode: the host plays
    # their turns (draw from the stock, discard it), paced by its clock, until they act.
    traits = TableTraits(auto_play_after_timeout=True)

    def open(self, options: JSON) -> RummyTable:
        return rummy_table.open_table(options)

    def apply(self, state: RummyTable, command: Command) -> tuple[RummyTable, list[Event]]:
        if isinstance(command, SeatPlayer):
            return rummy_table.seat(state, command.player, command.stack)
        if isinstance(command, UnseatPlayer):
            return rummy_table.unseat(state, command.player)
        if isinstance(command, StartHand):
            return rummy_table.start_round(state, command.seed)
        if isinstance(command, Act):
            return rummy_table.act(
                state,
                command.player,
                command.action,
                by_clock=command.by_clock,
                at_ms=command.at_ms,
            )
        raise Malformed(f"unsupported command {command!r}")

    def can_start_hand(self, state: RummyTable) -> bool:
        return rummy_table.can_start_round(state)

    def to_act(self, state: RummyTable) -> list[str]:
        return rummy_table.to_act(state)

    def turn_key(self, state: RummyTable, player: str) -> str | None:
        return rummy_table.turn_key(state, player)

    def legal_actions(self, state: RummyTable, player: str) -> JSON:
        return rummy_table.legal_actions(state, player)

    def view(self, state: RummyTable, player: str) -> JSON:
        return rummy_table.view(state, player)

    def public_view(self, state: RummyTable) -> JSON:
        return rummy_table.public_view(state)

    def timeout_action(self, state: RummyTable, player: str) -> JSON:
        return rummy_table.timeout_action(state, player)

    def result(self, state: RummyTable) -> HandResult | None:
        return rummy_table.result(state)

    def randomness(self, seed: bytes) -> list[Any]:
        return rummy_table.randomness(seed)

    def snapshot(self, state: RummyTable) -> JSON:
        return rummy_table.snapshot(state)

    # The host's `ProtoCodec` (croupier.table.entrypoints.grpc_api), by the codec: this
    # module imports no protobuf.
    action_from_message = staticmethod(codec.action_from_message)
    view_to_message = staticmethod(codec.game_view)


ENGINE = RummyEngine()
