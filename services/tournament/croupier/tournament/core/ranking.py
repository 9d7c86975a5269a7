"""Ranking and prizes (docs/rules/rummy-tournaments.md, "Ranking", rules 35-41, 47).

The ranking lists every registered player once, in groups sharing a place; places skip
after a shared place (1, 2, 2, 4); players of a group are in registration order.

1. Players still in, by chips in hand, highest first; equal chips share a place (rule 35,
   OQ 20).
2. Players out at the final table, the last one out first; players out at the same
   round end share a place (rules 37, 38, 40).
3. Players out before the final table, by tournament points, highest first; equal points
   share a place (rules 36, 37, 40, OQ 21). How long anyone played never counts (rule 41):
   the state holds no time.

Rule 39 (an eliminated player's provisional place can only improve) follows from this
order for tournaments without rebuys. A rebuy brings a player back among those still in,
above every eliminated player, so an eliminated player ranked above him moves one place
down; the ranking is final only when the tournament ends.

Prizes are paid only when the tournament has ended (rule 47). Players sharing places
k … k+n−1 share the sum of those n prizes (places past the payout table win 0): each gets
the sum divided by n, rounded down to the minor unit, and the remainder — fewer than n
units — goes one unit each to the first players of the group in registration order (rule
40, OQ 18). The prizes paid always add up to the prizes of the places taken.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from croupier.tournament.core.state import Tournament

__all__ = ["Place", "groups", "numbered", "prize_split", "prizes", "ranking", "split_prizes"]


@dataclass(frozen=True)
class Place:
    place: int
    players: tuple[str, ...]


def groups(scores: Sequence[tuple[str, int]]) -> list[tuple[str, ...]]:
    """The names of (name, score) pairs grouped by equal score, highest first; stable, so
    the given (registration) order holds within a group."""
    grouped: list[tuple[str, ...]] = []
    last: int | None = None
    for name, score in sorted(scores, key=lambda pair: pair[1], reverse=True):
        if grouped and score == last:
            grouped[-1] = (*grouped[-1], name)
        else:
            grouped.append((name,))
        last = score
    return grouped


def numbered(grouped: Sequence[tuple[str, ...]], first: int = 1) -> tuple[Place, ...]:
    """Groups placed from `first` on; places skip after a shared place (1, 2, 2, 4)."""
    places: list[Place] = []
    taken = first - 1
    for group in grouped:
        places.append(Place(taken + 1, group))
        taken += len(group)
    return tuple(places)


def ranking(state: Tournament, *, disqualified: bool = True) -> tuple[Place, ...]:
    """The live ranking, and the final one once the tournament is over (rules 35-41);
    the disqualified last, sharing the last place (rule 49), or left out."""
    players = [p for p in state.entrants.values() if not p.disqualified]
    still_in = [(p.name, p.chips) for p in players if p.out is None]
    at_final = [(p.name, p.out.round_end) for p in players if p.out and p.out.at_final_table]
    before = [(p.name, p.points) for p in players if p.out and not p.out.at_final_table]
    out = tuple(p.name for p in state.entrants.values() if p.disqualified)
    last = [out] if out and disqualified else []
    return numbered([*groups(still_in), *groups(at_final), *groups(before), *last])


def prize_split(state: Tournament, prizes: Sequence[int]) -> dict[str, int]:
    """Each player's prize of `prizes` (the payout table's, 1st first) on the final
    ranking. The disqualified win nothing (rule 49: loss of winnings): the others are
    placed without them, and a prize no one of them took goes to the winner, so the
    prizes still add up to the pool."""
    places = ranking(state, disqualified=False)
    won = split_prizes(places, prizes)
    if places and any(p.disqualified for p in state.entrants.values()):
        won[places[0].players[0]] += sum(prizes) - sum(won.values())
    return {name: won.get(name, 0) for name in state.entrants}


def split_prizes(places: Sequence[Place], prizes: Sequence[int]) -> dict[str, int]:
    """Each player's prize for `places` (groups in registration order), ties pooled (OQ 18).

    >>> split_prizes([Place(1, ("a",)), Place(2, ("b", "c"))], [100, 31, 20])
    {'a': 100, 'b': 26, 'c': 25}
    """
    won: dict[str, int] = {}
    for entry in places:
        first = entry.place - 1
        pool = sum(prizes[first : first + len(entry.players)])
        share, remainder = divmod(pool, len(entry.players))
        for index, name in enumerate(entry.players):
            won[name] = share + (1 if index < remainder else 0)
    return won


def prizes(state: Tournament) -> Mapping[str, int] | None:
    """Every registered player's prize once the tournament is over, else None (rule 47)."""
    if not state.finished:
        return None
    return prize_split(state, state.options.prizes)
