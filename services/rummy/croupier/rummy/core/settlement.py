"""Round settlement in chips, and tournament points (seed 000 §10; rules 20–23, 33).

The arithmetic is the one the tournament director uses too (`croupier.game.points`, one
copy); this module applies it to a rummy table's round:

- rule 20 / OQ 8: every player pays the round entry fee into the pot, or all their chips
  when they hold less;
- rule 22 / OQ 9 / OQ 15: each loser pays negative points × chip ratio, limited to the
  chips the loser has left after the fee and (flag `limit_to_winner_risk`, default on) to
  the chips the winner has left after the fee; each loser is limited independently;
- rules 21, 23: the winner takes the whole pot once, plus every loser's payment;
- a round with no winner (the stock ran out, or rule 46 cancelled it) returns each fee
  (OQ 24): no chips move and no tournament points are given;
- rule 33 / OQ 16: tournament points 3 to the winner, 1 to the loser(s) with the most
  negative points, 2 to everyone else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from croupier.game import points

__all__ = ["Settlement", "settle"]


@dataclass(frozen=True)
class Settlement:
    fees: Mapping[str, int]
    """What each player put in the pot."""
    pot: int
    chips_paid: Mapping[str, int]
    """Per loser: the chips paid to the winner on top of the fee."""
    chips_won: int
    """The winner's credit: the pot + every payment (0 with no winner)."""
    deltas: Mapping[str, int]
    """Net change of each player's chips over the round (sums to 0)."""
    tournament_points: Mapping[str, int]


def settle(
    *,
    players: Sequence[str],
    winner: str | None,
    penalty: Mapping[str, int],
    round_fee: int,
    chip_ratio: int,
    chips: Mapping[str, int],
    limit_to_winner_risk: bool = True,
) -> Settlement:
    """Settle one round. `chips` are the stacks before the round's fee was paid.

    >>> s = settle(players=["p1", "p2"], winner="p1", penalty={"p2": 32}, round_fee=30,
    ...            chip_ratio=3, chips={"p1": 1000, "p2": 1000})
    >>> s.chips_paid["p2"], s.chips_won, s.deltas["p1"], s.deltas["p2"]
    (96, 156, 126, -126)
    """
    for name, value in (("round_fee", round_fee), ("chip_ratio", chip_ratio)):
        if not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer")
    stacks = [max(0, chips[player]) for player in players]
    fees = dict(zip(players, points.entry_fees(stacks, round_fee), strict=True))
    pot = sum(fees.values())
    if winner is None:
        return Settlement(
            fees=fees,
            pot=pot,
            chips_paid={},
            chips_won=0,
            deltas={player: 0 for player in players},
            tournament_points={},
        )
    at_risk = {player: chips[player] - fees[player] for player in players}
    # OQ 15: losers in seat order from the winner's left.
    start = list(players).index(winner)
    order = [players[(start + step) % len(players)] for step in range(1, len(players))]
    negative = [(loser, penalty.get(loser, 0)) for loser in order]
    winner_at_risk = at_risk[winner] if limit_to_winner_risk else None
    paid = dict(points.payments(negative, chip_ratio, at_risk, winner_at_risk))
    won = pot + sum(paid.values())
    deltas = {player: -fees[player] - paid.get(player, 0) for player in players}
    deltas[winner] = won - fees[winner]
    return Settlement(
        fees=fees,
        pot=pot,
        chips_paid=paid,
        chips_won=won,
        deltas=deltas,
        tournament_points=dict(points.round_points(winner, negative)),
    )
