"""Turn clocks and time banks, computed from the command log's timestamps (pure).

A player's turn starts at the timestamp of the command after which they are to act.
Their deadline is turn start + turn allowance + what remains of their reserve. When they
act, the part of the turn beyond the allowance is taken from the reserve. Because every
timestamp is in the log, a rebuilt table has exactly the clocks the lost one had, and
disconnection changes nothing (the clock keeps running).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class ClockSettings:
    turn_ms: int
    reserve_ms: int = 0
    reconnect_ms: int = 60_000


@dataclass(frozen=True)
class Clocks:
    settings: ClockSettings
    turn_started_ms: Mapping[str, int] = field(default_factory=dict)
    reserve_left_ms: Mapping[str, int] = field(default_factory=dict)
    # Players the system plays for at once when their turn comes (seed 000 rule 45: after
    # a timeout, until they act again), in games that have such a mode.
    auto_players: frozenset[str] = frozenset()

    def deadline_ms(self, player: str) -> int | None:
        started = self.turn_started_ms.get(player)
        if started is None:
            return None
        if player in self.auto_players:
            return started
        reserve = self.reserve_left_ms.get(player, self.settings.reserve_ms)
        return started + self.settings.turn_ms + reserve

    def after(
        self,
        at_ms: int,
        acted: str | None,
        to_act: Iterable[str],
        continuing: frozenset[str] = frozenset(),
    ) -> Clocks:
        """The clocks once the command at `at_ms` (by `acted`, if a player) was applied.

        `continuing`: players whose turn goes on after this command (a backgammon roll
        before the move): their turn keeps its start and nothing is charged yet.
        """
        reserve = dict(self.reserve_left_ms)
        started = dict(self.turn_started_ms)
        if acted in continuing:
            return self
        if acted is not None and acted in started:
            overrun = at_ms - started[acted] - self.settings.turn_ms
            left = reserve.get(acted, self.settings.reserve_ms)
            reserve[acted] = max(0, left - max(0, overrun))
        waiting = set(to_act)
        for player in list(started):
            # A player who acted, or is no longer awaited, gets a fresh turn next time.
            if player not in waiting or player == acted:
                del started[player]
        for player in waiting:
            started.setdefault(player, at_ms)
        return replace(self, turn_started_ms=started, reserve_left_ms=reserve)

    def next_expiry(self) -> tuple[int, str] | None:
        """(deadline, player) of the clock that runs out first."""
        deadlines = [(d, p) for p in self.turn_started_ms if (d := self.deadline_ms(p)) is not None]
        return min(deadlines) if deadlines else None
