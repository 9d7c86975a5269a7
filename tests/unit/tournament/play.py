"""Short ways to build and drive a tournament in the tests."""

from __future__ import annotations

from collections.abc import Sequence

from croupier.tournament.core.actions import (
    Action,
    CancelRound,
    RaiseLevel,
    Rebuy,
    StartRound,
    end_round,
)
from croupier.tournament.core.options import Level, Options, RebuyPolicy
from croupier.tournament.core.standings import apply
from croupier.tournament.core.state import Tournament, new_tournament


def tournament(
    players: Sequence[str] = ("ann", "bob", "cat"),
    *,
    start: int = 1000,
    table_size: int = 4,
    levels: Sequence[tuple[int, int]] = ((0, 1),),
    rebuys: tuple[int, int] | None = None,
    winner_risk_limit: bool = True,
    prizes: Sequence[int] = (),
) -> Tournament:
    options = Options(
        starting_chips=start,
        table_size=table_size,
        levels=tuple(Level(fee, ratio) for fee, ratio in levels),
        rebuys=None if rebuys is None else RebuyPolicy(*rebuys),
        winner_risk_limit=winner_risk_limit,
        prizes=tuple(prizes),
    )
    return new_tournament(options, players)


def begin(round_id: str, *table: str) -> StartRound:
    return StartRound(round_id, table)


def finish(round_id: str, winner: str, **negative_points: int) -> Action:
    return end_round(round_id, winner, negative_points)


def cancel(round_id: str) -> CancelRound:
    return CancelRound(round_id)


LEVEL = RaiseLevel()


def rebuy(player: str) -> Rebuy:
    return Rebuy(player)


def run(state: Tournament, *actions: Action) -> Tournament:
    for action in actions:
        state, _ = apply(state, action)
    return state


def chips(state: Tournament) -> dict[str, int]:
    return {name: player.chips for name, player in state.entrants.items()}


def points(state: Tournament) -> dict[str, int]:
    return {name: player.points for name, player in state.entrants.items()}
