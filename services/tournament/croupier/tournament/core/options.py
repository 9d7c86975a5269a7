"""A points tournament's configuration (docs/rules/rummy-tournaments.md, seed 000).

- `starting_chips`: every entrant's stack, and what each rebuy credits (rules 8, 12);
- `table_size`: seats per table; the final table is the first round whose table holds
  every player still in (OQ 4, OQ 5);
- `levels`: each level's round entry fee and chip ratio (rules 18, 19); past the last
  listed level the level number still rises and the last level's terms stay in force;
- `rebuys`: `None` for a tournament without rebuys (rule 11), else how many per player
  (rule 13) and up to which level (rule 14);
- `winner_risk_limit`: OQ 9's flag (default on): a loser's payment is also limited to the
  chips the winner has left after the fee (rule 22);
- `prizes`: by place, 1st first, in minor units; later places win 0 (rule 47).

Bounds come from `croupier.game.limits`: every amount is in 0..MAX_AMOUNT, and so are the
chips that can ever be in play (every entrant's stack plus every rebuy allowed) and the
prize pool, so no stack or prize sum can leave a signed 64-bit integer.
"""

from __future__ import annotations

from dataclasses import dataclass

from croupier.game.limits import MAX_AMOUNT, OutOfBounds, check_amount, check_int
from croupier.tournament.core.errors import InvalidInput

__all__ = ["Level", "Options", "RebuyPolicy"]


@dataclass(frozen=True)
class Level:
    """One level's terms: the round entry fee and the chip ratio (rule 19)."""

    round_fee: int
    chip_ratio: int


@dataclass(frozen=True)
class RebuyPolicy:
    """At most `max_per_player` rebuys each (rule 13), while level ≤ `max_level` (rule 14)."""

    max_per_player: int
    max_level: int


@dataclass(frozen=True)
class Options:
    starting_chips: int
    table_size: int
    levels: tuple[Level, ...]
    rebuys: RebuyPolicy | None = None
    winner_risk_limit: bool = True
    prizes: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        try:
            self._check()
        except OutOfBounds as exc:
            raise InvalidInput("invalid_options", exc.message) from None

    def _check(self) -> None:
        check_amount(self.starting_chips, "starting_chips", low=1)
        # Counts have no bound of their own: none can usefully pass the chips bound.
        check_int(self.table_size, "table_size", 2, MAX_AMOUNT)
        if not isinstance(self.levels, tuple) or not self.levels:
            raise OutOfBounds("levels must list at least one level")
        for number, level in enumerate(self.levels, start=1):
            check_amount(level.round_fee, f"level {number} round_fee")
            check_amount(level.chip_ratio, f"level {number} chip_ratio")
        if not isinstance(self.winner_risk_limit, bool):
            raise OutOfBounds("winner_risk_limit must be true or false")
        for place, prize in enumerate(self.prizes, start=1):
            check_amount(prize, f"prize for place {place}")
        check_amount(sum(self.prizes), "the sum of the prizes")
        if self.rebuys is not None:
            check_int(self.rebuys.max_per_player, "max rebuys", 0, MAX_AMOUNT)
            check_int(self.rebuys.max_level, "max rebuy level", 1, MAX_AMOUNT)
        self.check_players(1)

    def check_players(self, count: int) -> None:
        """Refuse `count` entrants whose chips (with every rebuy allowed) pass MAX_AMOUNT."""
        rebuys_each = 0 if self.rebuys is None else self.rebuys.max_per_player
        most = self.starting_chips * count * (1 + rebuys_each)
        if most > MAX_AMOUNT:
            raise InvalidInput(
                "invalid_options",
                f"starting_chips × players × (1 + rebuys each) must be at most {MAX_AMOUNT}, "
                f"got {self.starting_chips} × {count} × {1 + rebuys_each}",
            )

    def terms(self, level: int) -> Level:
        """The fee and ratio in force at `level` (1-based); the last level's past the list."""
        return self.levels[min(level, len(self.levels)) - 1]
