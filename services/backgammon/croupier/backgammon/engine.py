"""Backgammon as the table host runs it: `ENGINE`, a `croupier.game.GameRules`.

Glue only: each command goes to the table's rules (`croupier.backgammon.core.table`), what
is read from a table to `croupier.backgammon.core.table_view`. Before a player leaves a
running game the host asks `evaluate_abandonment`, GNU Backgammon's evaluation by
`croupier.backgammon.adapters.gnubg_bridge` (I/O, so never inside `apply`), and logs it in
the `UnseatPlayer` that `core.abandonment` settles from. The engine is also the host's
`ProtoCodec` (it reads `croupier.backgammon.v1.Action` and writes
`croupier.backgammon.v1.View`), by `croupier.backgammon.codec`.
"""

from __future__ import annotations

from croupier.backgammon import codec
from croupier.backgammon.adapters.gnubg_bridge import GnubgError
from croupier.backgammon.adapters.gnubg_bridge import evaluate_abandonment as gnubg_evaluation
from croupier.backgammon.core import table, table_view
from croupier.backgammon.core.abandonment import at_stake
from croupier.backgammon.core.table import BackgammonTable
from croupier.game import (
    JSON,
    Act,
    ClockSettings,
    Command,
    Event,
    HandResult,
    Malformed,
    RuleBroken,
    SeatPlayer,
    StartHand,
    TableTraits,
    UnseatPlayer,
)


class BackgammonEngine:
    name = "backgammon"
    # 2: a single game's successor waits for both players' `ready` (version 1 dealt it at
    # once; its logs are not replayed under these rules).
    version = "2"
    # Seed defaults for the host (not applied by it yet): the 3-minute reconnection
    # window (¶9, rule 11). The seed gives no turn or main clock durations (OQ 6); these
    # are proposals, tables set `turn_seconds` / `main_clock_seconds`.
    # OQ 6: every game starts with a full main clock (the host refills reserves per deal).
    traits = TableTraits(
        default_clock=ClockSettings(turn_ms=30_000, reserve_ms=300_000, reconnect_ms=180_000),
        reserve_per_hand=True,
    )

    def open(self, options: JSON) -> BackgammonTable:
        return table.open_table(options)

    def apply(
        self, state: BackgammonTable, command: Command
    ) -> tuple[BackgammonTable, list[Event]]:
        if isinstance(command, SeatPlayer):
            return table.seat(state, command.player)
        if isinstance(command, UnseatPlayer):
            return table.unseat(state, command.player, command.evaluation)
        if isinstance(command, StartHand):
            return table.start_game(state, command.seed)
        if isinstance(command, Act):
            return table.act(state, command.player, command.action, by_clock=command.by_clock)
        raise Malformed(f"unsupported command {command!r}")

    async def evaluate_abandonment(self, state: BackgammonTable, player: str) -> JSON | None:
        """GNU Backgammon's evaluation of `player` leaving now (the host's hook)."""
        g = state.game
        if g is None or player not in g.players or not at_stake(g):
            return None
        try:
            return await gnubg_evaluation(g, player)
        except (GnubgError, OSError, ValueError, KeyError) as exc:
            raise RuleBroken(f"the position could not be evaluated now: {exc}") from exc

    def can_start_hand(self, state: BackgammonTable) -> bool:
        return table.can_start_hand(state)

    def to_act(self, state: BackgammonTable) -> list[str]:
        return table_view.to_act(state)

    def turn_key(self, state: BackgammonTable, player: str) -> str | None:
        return table_view.turn_key(state, player)

    def legal_actions(self, state: BackgammonTable, player: str) -> JSON:
        return table_view.legal_actions(state, player)

    def view(self, state: BackgammonTable, player: str) -> JSON:
        return table_view.view(state, player)

    def public_view(self, state: BackgammonTable) -> JSON:
        return table_view.public_view(state)

    def timeout_action(self, state: BackgammonTable, player: str) -> JSON:
        return table_view.timeout_action(state, player)

    def result(self, state: BackgammonTable) -> HandResult | None:
        return table_view.result(state)

    def randomness(self, seed: bytes) -> list[int]:
        return table_view.randomness(seed)

    def snapshot(self, state: BackgammonTable) -> JSON:
        return table_view.snapshot(state)

    # The host's `ProtoCodec` (croupier.table.entrypoints.grpc_api), by the codec: this module
    # imports no protobuf.
    action_from_message = staticmethod(codec.action_from_message)
    view_to_message = staticmethod(codec.game_view)


ENGINE = BackgammonEngine()
