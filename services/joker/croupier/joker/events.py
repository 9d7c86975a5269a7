"""Public facts the engine reports after each accepted action (never a hidden card).

Event types, past tense: `hand_started`, `trump_declared`, `bid_made`, `card_played`,
`trick_taken`, `hand_scored`, `pulka_settled`, `game_ended`. The table host forwards them
as its own `Event(type, data)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Event"]


@dataclass(frozen=True, slots=True)
class Event:
    type: str
    data: dict[str, Any] = field(default_factory=dict)
