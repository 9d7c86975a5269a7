"""Turn clocks and time banks, computed from the command log's timestamps (pure).

A player's turn starts at the timestamp of the command after which they are to act.
Their deadline is turn start + turn allowance + what remains of their reserve. When they
act, the part of the turn beyond the allowance is taken from the reserve. Because every
timestamp is in the log, a rebuilt table has exactly the clocks the lost one had, and
disconnection changes nothing (the clock keeps running).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from croupier.game import ClockSettings, Turn

# An auto-player's turn is played this long after it starts (or when the turn clock runs
# out, if sooner), not at once: a table whose players were all automatic logged commands
# as fast as the host could apply them (a Rummy 51 table: 23,546 entries in 6 s).
AUTO_PLAY_MS = 1_000


@dataclass(frozen=True)
class Clocks:
    settings: ClockSettings
    turn_started_ms: Mapping[str, int] = field(default_factory=dict)
    reserve_left_ms: Mapping[str, int] = field(default_factory=dict)
    # Players the system plays for when their turn comes (seed 000 rule 45: after a
    # timeout, until they act again), in games that have such a mode.
    auto_players: frozenset[str] = frozenset()
    # The key of each running turn, and the turns paused with the allowance they used.
    turn_keys: Mapping[str, str] = field(default_factory=dict)
    paused: Mapping[str, tuple[str, int]] = field(default_factory=dict)
    # Turns timed by an allowance of their own (a Seal response window): no reserve.
    allowances: Mapping[str, int] = field(default_factory=dict)

    def deadline_ms(self, player: str) -> int | None:
        started = self.turn_started_ms.get(player)
        if started is None:
            return None
        if player in self.auto_players:
            return started + min(self.settings.turn_ms, AUTO_PLAY_MS)
        if player in self.allowances:
            return started + self.allowances[player]
        reserve = self.reserve_left_ms.get(player, self.settings.reserve_ms)
        return started + self.settings.turn_ms + reserve

    def after(self, at_ms: int, acted: str | None, turns: Sequence[Turn]) -> Clocks:
        """The clocks once the command at `at_ms` (by `acted`, if a player) was applied;
        `turns` are the turns the table now waits for (`croupier.game.Turn`).

        - A player still awaited in the same turn keeps the turn's start: nothing is
          charged yet. Same turn: the same key (a backgammon roll before the move), or,
          without keys, a player who did not act.
        - A turn that ends, or pauses (the player is no longer awaited: their double is
          being answered, their anchor sealed), is charged: the time beyond the turn
          allowance comes off the reserve. A paused turn remembers its key and the part of
          the allowance it used; when the same turn resumes it continues from there.
        - Any other awaited player starts a fresh turn now, timed by the turn's
          `allowance_ms` when given (a window with its own clock, no reserve) or else by
          the table's.
        """
        awaited = {t.player: t.key for t in turns}
        turn = self.settings.turn_ms
        started = dict(self.turn_started_ms)
        reserve = dict(self.reserve_left_ms)
        keys = dict(self.turn_keys)
        paused = dict(self.paused)
        own = dict(self.allowances)
        for player in list(started):
            key = keys.get(player)
            if (
                player in awaited
                and awaited[player] == key
                and (key is not None or player != acted)
            ):
                continue
            used = at_ms - started.pop(player)
            keys.pop(player, None)
            if own.pop(player, None) is not None:
                continue  # a window of its own: nothing charged, nothing to resume
            left = reserve.get(player, self.settings.reserve_ms)
            reserve[player] = max(0, left - max(0, used - turn))
            if key is not None:
                paused[player] = (key, min(used, turn))
        for awaited_turn in turns:
            player, key = awaited_turn.player, awaited_turn.key
            if player in started:
                continue
            resumed = paused.pop(player, None)
            used = (
                resumed[1] if resumed is not None and key is not None and resumed[0] == key else 0
            )
            started[player] = at_ms - used
            if key is not None:
                keys[player] = key
            if awaited_turn.allowance_ms is not None:
                own[player] = awaited_turn.allowance_ms
        return replace(
            self,
            turn_started_ms=started,
            reserve_left_ms=reserve,
            turn_keys=keys,
            paused=paused,
            allowances=own,
        )

    def new_hand(self) -> Clocks:
        """Every reserve full again, no paused turn (games whose time bank is per game)."""
        return replace(self, reserve_left_ms={}, paused={})

    def next_expiry(self) -> tuple[int, str] | None:
        """(deadline, player) of the clock that runs out first."""
        deadlines = [(d, p) for p in self.turn_started_ms if (d := self.deadline_ms(p)) is not None]
        return min(deadlines) if deadlines else None
