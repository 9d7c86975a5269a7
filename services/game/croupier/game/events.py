"""What a game tells the world: public events and the settlement of a finished hand."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from croupier.game.commands import JSON


@dataclass(frozen=True)
class Event:
    """A public fact (never hidden cards): goes to `croupier.table.events`."""

    type: str
    data: JSON = field(default_factory=dict)


@dataclass(frozen=True)
class HandResult:
    """What a finished hand or game settles: exact integer amounts per player.

    `deltas` sum to `-commission_total` (what the house takes), so no chip is created
    or lost. `details` carries the game's own record (pots, winners, commission split...).
    """

    hand_number: int
    deltas: Mapping[str, int]
    commission: Mapping[str, int] = field(default_factory=dict)
    details: JSON = field(default_factory=dict)
    # The currency the amounts are in, when the engine knows it (else the table's).
    currency: str | None = None
