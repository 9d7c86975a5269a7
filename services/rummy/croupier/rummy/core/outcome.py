"""How a round ended and the negative points each loser is charged (seed 000 §10 [10.d]).

Rule numbers refer to the "Implementation reading" of seed 000.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

__all__ = [
    "GIN_BONUS",
    "UNDERCUT_BONUS",
    "Ending",
    "RoundOutcome",
    "gin_penalty",
    "rummy500_penalty",
    "rummy_penalty",
]

GIN_BONUS = 25
"""Rule 24: a gin adds 25 negative points to the loser's deadwood."""
UNDERCUT_BONUS = 10
"""Rule 26 / OQ 13: the undercut knocker takes 10 more negative points."""


class Ending(StrEnum):
    GIN = "gin"
    KNOCK = "knock"
    UNDERCUT = "undercut"
    OUT = "out"
    """Going down: out after laying melds over earlier turns."""
    HAND = "hand"
    """Out in one turn with nothing laid down before."""
    DRAW = "draw"
    """The stock ran out: no winner."""
    CANCELLED = "cancelled"
    """Seed 000 rule 46: every player was automatic for 5 minutes; no winner (OQ 24)."""


@dataclass(frozen=True)
class RoundOutcome:
    """The referee's record of a finished round."""

    ending: Ending
    winner: str | None
    deadwood: Mapping[str, int]
    """Per player, in the variant's card values (gin: after lay-offs)."""
    penalty: Mapping[str, int]
    """Negative points per loser (empty for a draw)."""
    scores: Mapping[str, int] = field(default_factory=dict)
    """Rummy 500 only: melds laid − cards in hand, per player."""


def gin_penalty(ending: Ending, knocker_deadwood: int, defender_deadwood: int) -> int:
    """The loser's negative points in Gin / Oklahoma Gin.

    Rule 24 (gin): defender's deadwood + 25. Rule 25 (knock): defender's deadwood −
    knocker's. Rule 26 (undercut): knocker's deadwood − defender's + 10.
    """
    if ending is Ending.GIN:
        return defender_deadwood + GIN_BONUS
    if ending is Ending.KNOCK:
        return defender_deadwood - knocker_deadwood
    if ending is Ending.UNDERCUT:
        return knocker_deadwood - defender_deadwood + UNDERCUT_BONUS
    raise ValueError(f"no gin penalty for {ending}")


def rummy_penalty(ending: Ending, hand_value: int, hand_bonus: int = 25) -> int:
    """Rummy / Rummy 51 / Rummy 40: rule 29 (Hand: + 25) and rule 30 (going down: deadwood)."""
    if ending is Ending.HAND:
        return hand_value + hand_bonus
    if ending is Ending.OUT:
        return hand_value
    raise ValueError(f"no rummy penalty for {ending}")


def rummy500_penalty(melds_value: int, hand_value: int, winner_score: int) -> int:
    """Rule 32 / OQ 12: net = (melds − hand) − winner's score; negative points = −net, or 0."""
    net = (melds_value - hand_value) - winner_score
    return -net if net < 0 else 0
