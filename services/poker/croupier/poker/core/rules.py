"""Table configuration and the error every illegal action raises."""

from __future__ import annotations

from dataclasses import dataclass

from croupier.game import Malformed, RuleBroken, Unknown

VARIANTS = ("nlhe", "plo", "naiko")
LIMITS = ("no-limit", "pot-limit")
MIN_PLAYERS = 2
MAX_PLAYERS = 9  # OQ 13: a table setting of 2-9 seats


@dataclass(frozen=True, slots=True)
class TableConfig:
    """What a table fixes for every hand: variant, betting limit, blinds and ante (integers).

    `ante` is posted by every player dealt in, before the blinds, never as part of his bet.
    `big_blind_ante` (instead of `ante`) is posted by the big blind alone, for the table,
    after his blind: a stack too short for both covers the blind first ("big blind first",
    TDA 2024). It is dead money: never returned as uncalled, always in the main pot, which
    every player not folded contests.
    """

    variant: str = "nlhe"
    small_blind: int = 1
    big_blind: int = 2
    ante: int = 0
    limit: str = ""  # "" = the variant's default: pot-limit for plo, no-limit otherwise
    # OQ 2: with a big blind all-in for less, "full" (the recommended default) makes the others
    # owe the full big blind; "posted" makes them match only the chips posted (PokerKit's rule,
    # used by the cross-check). The minimum raise increment stays one big blind either way.
    short_big_blind: str = "full"
    big_blind_ante: int = 0

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r}; expected one of {VARIANTS}")
        if self.limit and self.limit not in LIMITS:
            raise ValueError(f"unknown limit {self.limit!r}; expected one of {LIMITS}")
        for label, amount in (
            ("small blind", self.small_blind),
            ("big blind", self.big_blind),
            ("ante", self.ante),
            ("big-blind ante", self.big_blind_ante),
        ):
            if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
                raise ValueError(f"the {label} must be a non-negative integer")
        if self.ante and self.big_blind_ante:
            raise ValueError("a table has an ante or a big-blind ante, not both")
        if self.short_big_blind not in ("full", "posted"):
            raise ValueError("short_big_blind must be 'full' or 'posted'")
        if self.big_blind <= 0:
            raise ValueError("the big blind must be positive")
        if self.small_blind > self.big_blind:
            raise ValueError("the small blind cannot exceed the big blind")

    @property
    def omaha(self) -> bool:
        return self.variant == "plo"

    @property
    def hole_count(self) -> int:
        return 4 if self.variant == "plo" else 2

    @property
    def pot_limit(self) -> bool:
        if self.limit:
            return self.limit == "pot-limit"
        return self.variant == "plo"


class IllegalAction(RuleBroken):
    """An action the rules do not allow now; the state it was tried on is unchanged.

    `reason` is a precise machine-readable cause (e.g. "raise_below_minimum"). Messages
    never mention hidden cards.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message, reason)


class MalformedAction(IllegalAction, Malformed):
    """An action that is wrong in itself (an unknown name, a card or target that is none)."""


class NotInHand(IllegalAction, Unknown):
    """An action by, or naming, a player who is not in the hand."""
