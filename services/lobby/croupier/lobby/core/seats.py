"""A listed table's seats: taken, held while the host seats a player, or free; who may sit
at a private table; and what the table host's events say happened.

Joining holds the lowest free seat for a short time (`Hold.until`): long enough for the host
to seat the player and the wallet to take his buy-in. The hold becomes a seat when the host
answers (or when its `player_seated` event arrives, which heals a lobby that crashed in
between) and is released on a refusal or when it expires. One account has one seat per
table, held or taken.

Bots (docs/bots.md) sit only where the table allows them: a public table opened with bots
allowed, or a table whose owner asked for bots (`bots_wanted`, which also admits them at a
private table: the owner's request is their invitation). A bot's seat is labelled BOT
(`bots`, rule 59) and is otherwise a seat like any other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from croupier.game.limits import OutOfBounds, echo
from croupier.lobby.core.errors import AlreadyThere, NotAllowed, NotInvited
from croupier.lobby.core.terms import Terms

__all__ = ["RECENT_POTS", "Hold", "LobbyTable"]

RECENT_POTS = 20
"""Hands the listing's average pot counts."""


@dataclass(frozen=True)
class Hold:
    player: str
    seat: int
    until: datetime
    bot: bool = False


@dataclass(frozen=True)
class LobbyTable:
    table_id: str
    options_json: str
    """The game's options as the host opened the table (its JSON notation)."""
    terms: Terms
    owner: str
    private: bool = False
    invited: frozenset[str] = frozenset()
    invite_code: str = ""
    seated: tuple[tuple[int, str], ...] = ()
    holds: tuple[Hold, ...] = ()
    closed: bool = False
    clock_seconds: tuple[int, int, int] = (0, 0, 0)
    """Turn, reserve and reconnect seconds the table was opened with (0: the game's)."""
    bots: frozenset[str] = frozenset()
    """The seated players who are bots."""
    bots_wanted: int = 0
    """Seats the owner asked bots for that no bot has taken yet."""
    recent_pots: tuple[int, ...] = ()
    """Poker: the pots of the last `RECENT_POTS` hands, oldest first (the average pot)."""
    pots_through: int = 0
    """The table's event sequence of the latest hand counted in `recent_pots`."""

    # ---- reading ----------------------------------------------------------------------

    def average_pot(self) -> int:
        """The average of the recent pots, rounded down (0 before any hand ended)."""
        return sum(self.recent_pots) // len(self.recent_pots) if self.recent_pots else 0

    def with_pot(self, pot: int, sequence: int) -> LobbyTable:
        """A hand ended with `pot` in its pots (every side pot included), said by the
        table's event `sequence`: an event delivered again is counted once."""
        if sequence <= self.pots_through:
            return self
        pots = (*self.recent_pots, pot)[-RECENT_POTS:]
        return replace(self, recent_pots=pots, pots_through=sequence)

    def taken(self) -> frozenset[int]:
        return frozenset(seat for seat, _ in self.seated) | {hold.seat for hold in self.holds}

    def free_seats(self) -> int:
        return 0 if self.closed else self.terms.seats - len(self.taken())

    def players(self) -> tuple[str, ...]:
        """Players seated, in seat order."""
        return tuple(player for _, player in sorted(self.seated))

    def seat_of(self, player: str) -> int | None:
        """The seat `player` has or holds."""
        seats = [s for s, p in self.seated if p == player]
        seats += [hold.seat for hold in self.holds if hold.player == player]
        return seats[0] if seats else None

    def has(self, player: str) -> bool:
        return self.seat_of(player) is not None

    def wants_bot(self) -> bool:
        """A bot may take a seat now: the owner asked for one not yet held, or the table
        is public and allows bots."""
        if not self.free_seats():
            return False
        held = sum(1 for hold in self.holds if hold.bot)
        return self.bots_wanted > held or (self.terms.bots_allowed and not self.private)

    def may_sit(self, player: str, invite_code: str = "") -> bool:
        """A public table seats anyone; a private one its owner, its invitees and whoever
        gives its code."""
        if not self.private or player == self.owner or player in self.invited:
            return True
        return bool(self.invite_code) and invite_code == self.invite_code

    # ---- changes ----------------------------------------------------------------------

    def reserve(
        self,
        player: str,
        now: datetime,
        hold_for: timedelta,
        invite_code: str = "",
        *,
        bot: bool = False,
    ) -> tuple[LobbyTable, Hold]:
        """Hold the lowest free seat for `player` (a `bot`) until `now + hold_for`."""
        if self.closed:
            raise NotAllowed("table_closed", f"table {echo(self.table_id)} is closed")
        if bot and self.free_seats() and not self.wants_bot():
            raise NotAllowed("bots_not_allowed", f"table {echo(self.table_id)} takes no bots")
        if not bot and not self.may_sit(player, invite_code):
            raise NotInvited(
                "not_invited", f"table {echo(self.table_id)} is private: invitation required"
            )
        if self.has(player):
            raise AlreadyThere(
                "already_seated", f"{echo(player)} already has a seat at {echo(self.table_id)}"
            )
        free = [seat for seat in range(self.terms.seats) if seat not in self.taken()]
        if not free:
            raise NotAllowed("table_full", f"table {echo(self.table_id)} is full")
        hold = Hold(player, free[0], now + hold_for, bot)
        return replace(self, holds=(*self.holds, hold)), hold

    def confirm(self, player: str) -> LobbyTable:
        """The host seated `player`: his hold becomes his seat (nothing if he holds none)."""
        held = [hold for hold in self.holds if hold.player == player]
        if not held:
            return self
        bot = held[0].bot
        return replace(
            self,
            holds=tuple(hold for hold in self.holds if hold.player != player),
            seated=tuple(sorted((*self.seated, (held[0].seat, player)))),
            bots=self.bots | {player} if bot else self.bots,
            bots_wanted=max(0, self.bots_wanted - 1) if bot else self.bots_wanted,
        )

    def release(self, player: str) -> LobbyTable:
        """The host refused `player` (or his hold ran out): the seat is free again."""
        return replace(self, holds=tuple(hold for hold in self.holds if hold.player != player))

    def expire(self, now: datetime) -> tuple[LobbyTable, tuple[str, ...]]:
        """Release every hold whose time is up; the players released."""
        late = tuple(hold.player for hold in self.holds if hold.until <= now)
        table = self
        for player in late:
            table = table.release(player)
        return table, late

    def left(self, player: str) -> LobbyTable:
        """The host's `player_left`: his seat is free."""
        return replace(
            self,
            seated=tuple(s for s in self.seated if s[1] != player),
            bots=self.bots - {player},
        )

    def invite(self, by: str, players: Iterable[str]) -> LobbyTable:
        if by != self.owner:
            raise NotInvited("not_owner", f"only the owner of {echo(self.table_id)} invites")
        if not self.private:
            raise NotAllowed("not_private", f"table {echo(self.table_id)} is public")
        return replace(self, invited=self.invited | frozenset(players))

    def add_bots(self, by: str, count: int) -> LobbyTable:
        """The owner asks for bots in `count` more free seats."""
        if by != self.owner:
            raise NotInvited("not_owner", f"only the owner of {echo(self.table_id)} adds bots")
        if self.closed:
            raise NotAllowed("table_closed", f"table {echo(self.table_id)} is closed")
        room = self.free_seats() - self.bots_wanted
        if room <= 0:
            raise NotAllowed("table_full", f"table {echo(self.table_id)} has no seat for a bot")
        if not 1 <= count <= room:
            raise OutOfBounds(f"count is 1 to {room}, the seats free at {echo(self.table_id)}")
        return replace(self, bots_wanted=self.bots_wanted + count)

    def close(self) -> LobbyTable:
        return replace(self, closed=True, holds=())
