"""Seed 000 rules 45–46 at a table: who is in auto-player mode, and when a round whose
players are all automatic is cancelled.

Pure: time comes in as each action's log timestamp (`croupier.game.Act.at_ms`),
so a table rebuilt from its log cancels the same round at the same command.

- Rule 45: an action the clock played puts its player in auto-player mode; the player's
  own action (or leaving) ends it. The table host keeps the same set for its clocks, which
  pace an automatic turn (`croupier.table.core.clocks.AUTO_PLAY_MS`).
- Rule 46 / OQ 24: once every player of the running round is automatic, the round goes on
  for `ALL_AUTOMATIC_MS` (5 minutes), counted from the action that made the last of them
  automatic (or, in a round dealt to players who all were already, from its first
  automatic action); the first automatic action at or after that cancels the round.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

__all__ = ["ALL_AUTOMATIC_MS", "AutoPlay"]

ALL_AUTOMATIC_MS = 5 * 60 * 1000
"""Rule 46: how long a round whose players are all automatic goes on."""


@dataclass(frozen=True)
class AutoPlay:
    players: frozenset[str] = frozenset()
    """Players in auto-player mode (rule 45)."""
    all_since_ms: int | None = None
    """When every player of the running round was automatic from (None: someone is not)."""

    def after_act(
        self, round_players: Iterable[str], player: str, by_clock: bool, at_ms: int
    ) -> AutoPlay:
        """The modes once `player` acted at `at_ms`, by the clock or themselves."""
        players = self.players | {player} if by_clock else self.players - {player}
        if not set(round_players) <= players:
            return AutoPlay(players)
        since = at_ms if self.all_since_ms is None else self.all_since_ms
        return AutoPlay(players, since)

    def cancels(self, by_clock: bool, at_ms: int) -> bool:
        """Rule 46: this automatic action comes 5 minutes or more after all were automatic."""
        return (
            by_clock
            and self.all_since_ms is not None
            and at_ms - self.all_since_ms >= ALL_AUTOMATIC_MS
        )

    def left(self, player: str) -> AutoPlay:
        # Only a player out of the round (eliminated, rule 9) leaves while it runs: the
        # round's 5 minutes go on counting.
        return replace(self, players=self.players - {player})

    def new_round(self) -> AutoPlay:
        return AutoPlay(self.players)
