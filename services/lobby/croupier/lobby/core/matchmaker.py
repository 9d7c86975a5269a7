"""The matchmaker: tickets saying "a game like this at a stake in this range", matched by a
`process(now)` that the service calls on its interval and tests call by hand (Nakama's
approach: no ticker inside).

A ticket is compatible with another when they ask for the same game (the same options
`shape`, the stake aside), in the same currency, from different accounts, each rating
within the other's rating range (a ticket without one accepts any), and the stake ranges
of the whole group overlap; the group plays the lowest stake every ticket accepts.
Tickets are pooled by game, shape and currency, so a ticket is only compared with the
tickets it could play with.
The count bound widens with time: a ticket first waits for a full table (`max_count`
players); after `widen_after` it accepts `min_count` (a poker table of 2 rather than 6
later). A ticket older than `ttl` expires. Oldest tickets are served first, so a ticket
is never passed over by a younger one asking the same; but accounts that just played
together (`avoid`: the others of each account's latest match) are paired again only when
nobody else compatible waits.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from croupier.game.limits import echo
from croupier.lobby.core.errors import InvalidInput
from croupier.lobby.core.ratings import RatingRange
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
    rating: float = 0.0
    """The account's rating at the game when it queued."""
    rating_range: RatingRange | None = None
    """The opponents' ratings it accepts (None: any)."""
    avoid: frozenset[str] = frozenset()
    """The accounts of its latest match."""

    def compatible(self, other: Ticket) -> bool:
        return (
            self.game == other.game
            and self.shape == other.shape
            and self.currency == other.currency
            and self.player != other.player
            and (self.rating_range is None or self.rating_range.accepts(other.rating))
            and (other.rating_range is None or other.rating_range.accepts(self.rating))
        )

    def met(self, other: Ticket) -> bool:
        """The two accounts played each other in the latest match of one of them."""
        return other.player in self.avoid or self.player in other.avoid


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
    """The matches the waiting `tickets` make at `now`, oldest first, and the tickets that
    expired."""
    ordered = sorted(tickets, key=_age)
    expired = tuple(t for t in ordered if now - t.created >= settings.ttl)
    gone = {t.ticket_id for t in expired}
    pools: dict[tuple[str, str, str], dict[str, Ticket]] = {}
    for ticket in ordered:
        if ticket.ticket_id not in gone:
            pool = pools.setdefault((ticket.game, ticket.shape, ticket.currency), {})
            pool[ticket.ticket_id] = ticket
    matches = [match for pool in pools.values() for match in _match_pool(pool, now, settings)]
    matches.sort(key=lambda m: (m.tickets[0].created, m.tickets[0].ticket_id))
    return Processed(tuple(matches), expired)


def _match_pool(
    waiting: dict[str, Ticket], now: datetime, settings: MatchmakerSettings
) -> Iterator[Match]:
    """Matches among one pool's tickets (oldest first; matched ones leave `waiting`)."""
    pool = _Pool(waiting)
    for first in list(waiting.values()):
        if first.ticket_id not in waiting:
            continue
        group = [first]
        low, high = first.min_stake, first.max_stake
        for other in pool.candidates(first):
            if len(group) == first.max_count:
                break
            if not all(member.compatible(other) for member in group):
                continue
            if max(low, other.min_stake) <= min(high, other.max_stake):
                group.append(other)
                low, high = max(low, other.min_stake), min(high, other.max_stake)
        if len(group) >= _wanted(first, now, settings):
            pool.remove(group)
            yield Match(tuple(group), low)


class _Pool:
    """One pool's waiting tickets, indexed so that a ticket reads only the tickets that may
    suit it: a ticket with a rating range only those rated in it (found by bisection), a
    ticket without one those without a range first (any of them accepts its rating), then
    the ranged ones whose range takes its rating (found by bisection on the ranges' low
    ends). Without the index, tickets nobody suits (a narrow range) would sit at the head
    of the pool and be read by every later ticket, and a ticket without a range still
    short of a full table would read every ranged ticket of its pool on each pass."""

    def __init__(self, waiting: dict[str, Ticket]) -> None:
        self.waiting = waiting
        self.anyone = {i: t for i, t in waiting.items() if t.rating_range is None}
        self.ranged = {i: t for i, t in waiting.items() if t.rating_range is not None}
        self.by_rating = sorted((t.rating, t.ticket_id) for t in waiting.values())
        self.by_low = sorted(
            (t.rating_range.low, t.ticket_id) for t in waiting.values() if t.rating_range
        )

    def remove(self, group: Sequence[Ticket]) -> None:
        for ticket in group:
            del self.waiting[ticket.ticket_id]
            self.anyone.pop(ticket.ticket_id, None)
            self.ranged.pop(ticket.ticket_id, None)

    def _taking(self, rating: float) -> Iterator[Ticket]:
        """The ranged tickets still waiting whose range takes `rating`, oldest first (a
        generator: read only once the tickets without a range did not fill the group)."""
        end = bisect.bisect_right(self.by_low, (rating, "\U0010ffff"))
        found = (self.ranged.get(i) for _, i in self.by_low[:end])
        yield from sorted(
            (t for t in found if t and t.rating_range and t.rating_range.high >= rating),
            key=_age,
        )

    def candidates(self, first: Ticket) -> Iterator[Ticket]:
        """The other waiting tickets for `first`, oldest first within each part: those it
        did not just play, then those it did (read lazily: a full group stops it)."""
        parts: list[Iterable[Ticket]] = [self.anyone.values(), self._taking(first.rating)]
        if first.rating_range is not None:
            start = bisect.bisect_left(self.by_rating, (first.rating_range.low, ""))
            end = bisect.bisect_right(self.by_rating, (first.rating_range.high, "\U0010ffff"))
            rated = (self.waiting.get(i) for _, i in self.by_rating[start:end])
            parts = [sorted((t for t in rated if t is not None), key=_age)]
        for again in (False, True):
            for part in parts:
                yield from (t for t in part if t is not first and first.met(t) is again)


def _age(ticket: Ticket) -> tuple[datetime, str]:
    return ticket.created, ticket.ticket_id
