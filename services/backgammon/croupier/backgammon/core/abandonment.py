"""A running game (or series) left by a player: settled from an outside evaluation.

Rule 12, OQ 7: the table host asks GNU Backgammon (`croupier.backgammon.adapters.gnubg_bridge`)
for its evaluation of the position before it logs the `UnseatPlayer`, and puts the answer in
the command, so these rules stay pure and a replay never re-evaluates. A single game settles
|E| x stake x cube (to the cent, capped at the maximum) to the side the connected player's
cubeful equity E favours; a series settles its stake x |2 x MWC - 1| to the side the connected
player's match winning chance MWC favours (the proportional reading of ¶9: each side gets its
expected share of the stake). Commission applies as to any game. A running game left without
an evaluation, or with one of another position, is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from croupier.backgammon.core import game
from croupier.backgammon.core.board import position_id
from croupier.backgammon.core.commission import abandoned_game_settlement
from croupier.backgammon.core.errors import EvaluationRefused, InvalidAction
from croupier.backgammon.core.matchid import match_id
from croupier.game import JSON

__all__ = ["Abandonment", "abandonment", "at_stake"]


@dataclass(frozen=True)
class Abandonment:
    """A running game (or series) settled because a player left (rule 12, OQ 7)."""

    leaver: str
    player: str  # the connected player, whose value the evaluation states
    value: str  # money: equity E (stake x cube units); series: match winning chance
    kind: str  # "equity" | "mwc"
    payee: str | None
    payer: str | None
    amount: int
    details: JSON = field(default_factory=dict)

    def public(self) -> JSON:
        """What the table's views and events say of it."""
        return {
            "player": self.leaver,
            "evaluated_for": self.player,
            self.kind: self.value,
            "amount": self.amount,
            "to": self.payee,
        }


def at_stake(g: game.State) -> bool:
    """A game runs, or a series is between two games: leaving must be settled."""
    return g.phase != "idle" and not g.complete


def abandonment(g: game.State, leaver: str, evaluation: JSON | None) -> Abandonment:
    """The settlement of `leaver` leaving the running game `g`, from `evaluation`."""
    if evaluation is None:
        raise EvaluationRefused(
            "a running game is left only with GNU Backgammon's evaluation of its "
            "position (the table host asks for it)"
        )
    connected = 1 - g.index(leaver)
    if (
        evaluation.get("player") != g.players[connected]
        or evaluation.get("position_id") != position_id(g.board)
        or evaluation.get("match_id") != match_id(game.match_key(g))
    ):
        raise EvaluationRefused("the evaluation is of another position or player")
    series = g.options.mode == "match"
    kind = "mwc" if series else "equity"
    try:
        value = Decimal(str(evaluation[kind]))
    except (KeyError, InvalidOperation):
        raise InvalidAction(f"the evaluation has no numeric {kind!r}") from None
    if not value.is_finite():
        raise InvalidAction(f"the evaluation's {kind} is not finite")
    if series:
        if not Decimal(0) <= value <= Decimal(1):
            raise InvalidAction("a match winning chance lies in [0, 1]")
        mine = 2 * value - 1  # the connected player's share of the series stake
        cube, cap = 1, None
    else:
        mine, cube, cap = value, g.cube, g.options.max_win
    # abandoned_game_settlement takes player 0's equity, at most 3 cube units; a
    # pending double or beaver is valued on a larger cube (same amount).
    e0 = mine if connected == 0 else -mine
    while abs(e0) > 3 and cube < 4 * g.cube:
        e0, cube = e0 / 2, cube * 2
    if abs(e0) > 3:
        raise InvalidAction(f"{kind} {value} is out of range")
    moved = abandoned_game_settlement(e0, g.options.stake, cube, cap, tournament=True)
    return Abandonment(
        leaver=leaver,
        player=g.players[connected],
        value=str(value),
        kind=kind,
        payee=None if moved.payee is None else g.players[moved.payee],
        payer=None if moved.payer is None else g.players[moved.payer],
        amount=moved.settlement.amount,
        details={
            "evaluator": evaluation.get("evaluator", ""),
            "position_id": evaluation["position_id"],
            "match_id": evaluation["match_id"],
            "phase": str(g.phase),
            "cube": g.cube,
            "score": {g.players[0]: g.score[0], g.players[1]: g.score[1]},
        },
    )
