"""Ratings per game: the number matchmaking compares, and the FIBS formula that moves a
backgammon player's rating after a match.

FIBS (the First Internet Backgammon Server's `help formula`): for an n-point match between
ratings r1 and r2, D = |r1 - r2| and P_upset = 1 / (10^(D·√n / 2000) + 1) is the chance
that the underdog wins. The winner gains 4·K·√n·P, the loser loses 4·K·√n·P (each with his
own K), where P is P_upset if the favourite won and 1 - P_upset if the underdog did, and
K = max(1, 5 - experience / 100) lets new players reach their level quickly. Experience
is the sum of the lengths of the matches a player has finished; everyone starts at 1500
with experience 0.

The other games are rated with openskill's Weng-Lin models (in the service layer: the core
imports nothing outside the standard library); their `value` is the model's ordinal
(μ - 3σ), which rises as the system grows sure a player is good.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from croupier.game.limits import OutOfBounds

__all__ = [
    "FIBS_START",
    "Rating",
    "RatingRange",
    "fibs_favourite_wins",
    "fibs_match",
]

FIBS_START = 1500.0


@dataclass(frozen=True)
class Rating:
    """One account's rating at one game. `value` is what matchmaking compares: the FIBS
    rating at backgammon, the Weng-Lin ordinal elsewhere (from `mu` and `sigma`).
    `experience`: FIBS's match points finished (games rated, elsewhere)."""

    value: float = FIBS_START
    experience: int = 0
    mu: float = 0.0
    sigma: float = 0.0


@dataclass(frozen=True)
class RatingRange:
    """The ratings a ticket accepts an opponent at, both ends included."""

    low: float
    high: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high)) or self.low > self.high:
            raise OutOfBounds("the rating range needs finite bounds, min_rating <= max_rating")

    def accepts(self, value: float) -> bool:
        return self.low <= value <= self.high


def fibs_favourite_wins(difference: float, length: int) -> float:
    """The chance that the higher rated player wins an n-point match (1 - P_upset)."""
    return 1.0 - 1.0 / (10 ** (abs(difference) * math.sqrt(length) / 2000) + 1)


def _factor(experience: int) -> float:
    return max(1.0, 5.0 - experience / 100)


def fibs_match(winner: Rating, loser: Rating, length: int) -> tuple[Rating, Rating]:
    """The winner's and the loser's ratings after a `length`-point match."""
    if length < 1:
        raise OutOfBounds("a match is at least one point long")
    favourite = fibs_favourite_wins(winner.value - loser.value, length)
    # P: the chance the loser had of winning (the winner was the favourite or not).
    chance = 1.0 - favourite if winner.value >= loser.value else favourite
    stake = 4 * math.sqrt(length) * chance
    return (
        Rating(winner.value + _factor(winner.experience) * stake, winner.experience + length),
        Rating(loser.value - _factor(loser.experience) * stake, loser.experience + length),
    )
