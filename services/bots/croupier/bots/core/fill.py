"""When bots take seats (pure): the owner's request at once, a public table that allows
bots after its players waited `fill_after` with seats free.

A table is followed by its latest listing (the lobby's `lobby.table_listed` events);
`Waiting.since` is when it was first seen with a free seat and a human seated, so the wait
restarts when it fills up or empties.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

__all__ = ["Listing", "bots_due"]


@dataclass(frozen=True)
class Listing:
    """What the fill rule reads of a table's listing."""

    table_id: str
    game: str
    options_json: str
    currency: str
    seats: int
    seats_taken: int
    seated: tuple[str, ...]
    bots: frozenset[str]
    bots_wanted: int
    bots_allowed: bool
    private: bool
    closed: bool
    version: int

    def free(self) -> int:
        return 0 if self.closed else self.seats - self.seats_taken

    def humans(self) -> int:
        return sum(1 for player in self.seated if player not in self.bots)

    def fillable(self) -> bool:
        """A public table that allows bots, with someone waiting and a seat free."""
        return self.bots_allowed and not self.private and self.humans() > 0 and self.free() > 0


def bots_due(listing: Listing, since: datetime | None, now: datetime, fill_after: timedelta) -> int:
    """How many bots to seat at `listing`'s table now: the seats the owner asked for, or,
    once its players waited `fill_after` (since `since`), every free seat."""
    asked = min(listing.bots_wanted, listing.free())
    if asked:
        return asked
    if listing.fillable() and since is not None and now - since >= fill_after:
        return listing.free()
    return 0
