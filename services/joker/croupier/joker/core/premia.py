"""Premia (bonus) and moshla (wipe) of one pulka — seed 003, implementation rules 1–15.

When the last hand of a pulka has been scored (rule 1), each player is settled once:

- he *qualifies* when he fulfilled every hand of the pulka (rules 4–6; a khishti or any
  failed hand disqualifies, a fulfilled pass does not);
- a qualifier receives his own best ordinary hand score once more (rule 7); khishti
  penalties are never a best hand (rule 8);
- with k qualifiers, k = 0 → nobody is charged, k = 1 → every other player is charged,
  k = 2 or 3 → the non-qualifiers are charged under `others_deducted` and nobody under
  `others_not_deducted`, k = 4 → nobody (rules 10–13); a charged player loses his own best
  ordinary hand score (rule 9), and the earliest hand with that score is crossed out
  (OQ 2). Only khishti hands → moshla 0, nothing crossed out (OQ 1);
- the crossed-out hand keeps its points in the sum; the moshla is a separate negative
  entry (rules 14–15, OQ 5): result = Σ hands + premia + moshla;
- premia off → neither premia nor moshla; premia on and moshla off → premia only (OQ 6).

Generalised to any number of players: "k = 4" reads "everyone qualified".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from croupier.joker.core.options import Khishti, MultiPremia, Options, TookAll
from croupier.joker.core.scoring import HandOutcome, hand_score

__all__ = ["PlayerSettlement", "PulkaSettlement", "settle_pulka"]


@dataclass(frozen=True, slots=True)
class PlayerSettlement:
    """One player's pulka: his hand scores, premia (≥ 0), moshla (≤ 0) and result."""

    player: str
    hand_scores: tuple[int, ...]
    qualified: bool
    premia: int
    moshla: int
    charged: bool
    crossed_out: int | None
    """0-based index (in the pulka) of the hand the moshla crossed out, or None."""

    @property
    def hands_sum(self) -> int:
        return sum(self.hand_scores)

    @property
    def result(self) -> int:
        """Σ hands (khishti included) + premia + moshla (rule 14)."""
        return self.hands_sum + self.premia + self.moshla


@dataclass(frozen=True, slots=True)
class PulkaSettlement:
    players: tuple[PlayerSettlement, ...]

    def of(self, player: str) -> PlayerSettlement:
        for settled in self.players:
            if settled.player == player:
                return settled
        raise KeyError(player)


def _best_ordinary(scores: Sequence[int], outcomes: Sequence[HandOutcome]) -> int | None:
    """Index of the earliest highest non-khishti score (rules 8–9, OQ 1–2), or None."""
    best: int | None = None
    for index, (score, outcome) in enumerate(zip(scores, outcomes, strict=True)):
        if outcome.khishti:
            continue
        if best is None or score > scores[best]:
            best = index
    return best


def settle_pulka(
    players: Sequence[str],
    hands: Sequence[Mapping[str, HandOutcome]],
    options: Options | None = None,
) -> PulkaSettlement:
    """Settle one pulka from every hand's outcome per player (rules 1–15)."""
    options = options or Options()
    khishti: Khishti = options.khishti
    took_all: TookAll = options.took_all
    outcomes = {p: [hand[p] for hand in hands] for p in players}
    scores = {p: [hand_score(o, khishti, took_all) for o in outcomes[p]] for p in players}
    qualified = {p: all(o.fulfilled for o in outcomes[p]) for p in players}
    best = {p: _best_ordinary(scores[p], outcomes[p]) for p in players}
    k = sum(qualified.values()) if options.premia else 0

    charged: set[str] = set()
    several_rule = k == 1 or options.multi_premia is MultiPremia.OTHERS_DEDUCTED
    if options.premia and options.moshla and 0 < k < len(players) and several_rule:
        charged = {p for p in players if not qualified[p]}

    settled: list[PlayerSettlement] = []
    for p in players:
        index = best[p]
        premia = 0
        if options.premia and qualified[p] and index is not None:
            premia = scores[p][index]
        moshla = 0
        crossed: int | None = None
        if p in charged and index is not None:
            moshla = -scores[p][index]
            crossed = index
        settled.append(
            PlayerSettlement(
                player=p,
                hand_scores=tuple(scores[p]),
                qualified=qualified[p],
                premia=premia,
                moshla=moshla,
                charged=p in charged,
                crossed_out=crossed,
            )
        )
    return PulkaSettlement(tuple(settled))
