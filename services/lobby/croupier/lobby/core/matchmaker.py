"""The matchmaker: tickets saying "a game like this at a stake in this range", matched by a
`process(now)` that the service calls on its interval and tests call by hand (Nakama's
approach: no ticker inside).

A ticket is compatible with another when they ask for the same game (the same options
`shape`, the stake aside), in the same currency, from different accounts, and the stake
ranges of the whole group overlap; the group plays the lowest stake every ticket accepts.
The count bound widens with time: a ticket first waits for a full table (`max_count`
players); after `widen_after` it accepts `min_count` (a poker table of 2 rather than 6
later). A ticket older than `ttl` expires. Oldest tickets are served first, so a ticket
is never passed over by a younger one asking the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from croupier.game.limits import echo
from croupier.lobby.core.errors import InvalidInput
from croupier.lobby.core.terms import Terms

__all__ = ["Match", "MatchmakerSettings", "Processed", "Ticket", "counts_for", "process"]


@dataclass(frozen=True)
class MatchmakerSettings:
    widen_after: timedelta = timedelta(seconds=10)
    ttl: timedelta = timedelta(minutes=10)


@dataclass(frozen=True)
class Ticket:
    ticket_id: str
    player: str
    game: str
    shape: str
    currency: str
    min_stake: int
    max_stake: int
    min_count: int
    max_count: int
    created: datetime

    def compatible(self, other: Ticket) -> bool:
        return (
            self.game == other.game
            and self.shape == other.shape
            and self.currency == other.currency
            and self.player != other.player
        )


@dataclass(frozen=True)
class Match:
    """Tickets to seat at one new table, oldest first, at `stake`."""

    tickets: tuple[Ticket, ...]
    stake: int

    @property
    def match_id(self) -> str:
        return f"match-{self.tickets[0].ticket_id}"


@dataclass(frozen=True)
class Processed:
    matches: tuple[Match, ...]
    expired: tuple[Ticket, ...]


def counts_for(terms: Terms, min_stake: int, max_stake: int) -> tuple[int, int]:
    """How many players a ticket for a table with `terms` waits for (min, max); checks the
    stake range. Poker tables start heads-up; the other games fill every seat."""
    if min_stake > max_stake:
        raise InvalidInput(
            "stake_range_inverted",
            f"min_stake {echo(min_stake)} is above max_stake {echo(max_stake)}",
        )
    return (2 if terms.game == "poker" else terms.seats), terms.seats


def _wanted(ticket: Ticket, now: datetime, settings: MatchmakerSettings) -> int:
    return ticket.min_count if now - ticket.created >= settings.widen_after else ticket.max_count


def process(tickets: Sequence[Ticket], now: datetime, settings: MatchmakerSettings) -> Processed:
    """The matches the waiting `tickets` make at `now`, and the tickets that expired."""
    ordered = sorted(tickets, key=lambda t: (t.created, t.ticket_id))
    expired = tuple(t for t in ordered if now - t.created >= settings.ttl)
    used = {t.ticket_id for t in expired}
    matches: list[Match] = []
    for first in ordered:
        if first.ticket_id in used:
            continue
        group = [first]
        low, high = first.min_stake, first.max_stake
        for other in ordered:
            if len(group) == first.max_count:
                break
            if other.ticket_id in used or other is first:
                continue
            if not all(member.compatible(other) for member in group):
                continue
            if max(low, other.min_stake) <= min(high, other.max_stake):
                group.append(other)
                low, high = max(low, other.min_stake), min(high, other.max_stake)
        if len(group) >= _wanted(first, now, settings):
            matches.append(Match(tuple(group), low))
            used.update(t.ticket_id for t in group)
    return Processed(tuple(matches), expired)
