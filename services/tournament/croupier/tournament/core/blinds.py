"""Poker tournament blind structures (docs/rules/poker-naiko.md, rules 52 and 54).

A `BlindStructure` is `levels` (blinds, ante, minutes) and `breaks` (after a level, for some
minutes): level 1, its break if any, level 2, ...; the last level stays in force. `level_at`
places a clock reading (seconds, passed in: pure core) in it. An ante is `none`,
`per_player` (every player dealt in) or `big_blind` (the big blind alone, after his blind:
"big blind first", TDA 2024); `to_table_config_fields` gives the poker table options.

Bounds: amounts from `croupier.game.limits` (0..MAX_AMOUNT); levels, breaks, a generator's
level length and target are whole minutes, at most one day (`MAX_CLOCK_SECONDS`). Refusals:
`InvalidInput` `invalid_structure`; an unknown preset name `unknown_structure`.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Literal, NamedTuple

from croupier.game.limits import (
    MAX_AMOUNT,
    MAX_CLOCK_SECONDS,
    OutOfBounds,
    check_amount,
    check_int,
    echo,
)
from croupier.tournament.core.errors import InvalidInput

__all__ = [
    "ANTE_KINDS",
    "PRESETS",
    "BlindStructure",
    "Break",
    "Level",
    "LevelClock",
    "Recipe",
    "generate",
    "level_at",
    "preset",
    "to_table_config_fields",
]

AnteKind = Literal["none", "per_player", "big_blind"]
ANTE_KINDS: tuple[AnteKind, ...] = ("none", "per_player", "big_blind")
# A duration in minutes obeys the clock bound (one day), read in minutes.
MAX_MINUTES = MAX_CLOCK_SECONDS // 60


@dataclass(frozen=True)
class Level:
    """One level's blinds and ante (0 when `ante_kind` is `none`), played for `minutes`."""

    small_blind: int
    big_blind: int
    ante: int
    ante_kind: AnteKind
    minutes: int


@dataclass(frozen=True)
class Break:
    """A pause of `minutes` once level number `after_level` (1-based) ends."""

    after_level: int
    minutes: int


@dataclass(frozen=True)
class BlindStructure:
    """Levels that never fall, with breaks between them (validated on construction).

    From one level to the next the small blind, the big blind and the ante each stay or
    rise and at least one rises; a structure uses one ante kind (levels without an ante
    may come first). Breaks are in level order, one at most after a level, never after
    the last level (which has no end).
    """

    levels: tuple[Level, ...]
    breaks: tuple[Break, ...] = ()

    def __post_init__(self) -> None:
        try:
            self._check()
        except OutOfBounds as exc:
            raise InvalidInput("invalid_structure", exc.message) from None

    def _check(self) -> None:
        if not isinstance(self.levels, tuple) or not self.levels:
            raise OutOfBounds("levels must list at least one level")
        previous: Level | None = None
        for number, level in enumerate(self.levels, start=1):
            _check_level(level, f"level {number}")
            if previous is not None:
                _check_rise(previous, level, number)
            previous = level
        if not isinstance(self.breaks, tuple):
            raise OutOfBounds("breaks must be a list of breaks")
        after = 0
        for pause in self.breaks:
            if not isinstance(pause, Break):
                raise OutOfBounds(f"a break must be a Break, got {echo(pause)}")
            check_int(pause.after_level, "a break's after_level", 1, MAX_AMOUNT)
            if not after < pause.after_level < len(self.levels):
                raise OutOfBounds(
                    "breaks come in level order, at most one after a level and none after "
                    f"the last (level {len(self.levels)}), got one after level {pause.after_level}"
                )
            what = f"the break after level {pause.after_level}: minutes"
            check_int(pause.minutes, what, 1, MAX_MINUTES)
            after = pause.after_level


def _check_level(level: object, what: str) -> None:
    if not isinstance(level, Level):
        raise OutOfBounds(f"{what} must be a Level, got {echo(level)}")
    check_amount(level.big_blind, f"{what} big_blind", low=1)
    check_int(level.small_blind, f"{what} small_blind", 1, level.big_blind)
    if level.ante_kind not in ANTE_KINDS:
        raise OutOfBounds(f"{what} ante_kind must be one of {', '.join(ANTE_KINDS)}")
    if level.ante_kind == "none":
        check_int(level.ante, f"{what} ante (ante_kind none)", 0, 0)
    else:
        check_amount(level.ante, f"{what} ante", low=1)
    check_int(level.minutes, f"{what} minutes", 1, MAX_MINUTES)


def _check_rise(before: Level, level: Level, number: int) -> None:
    if "none" not in (before.ante_kind, level.ante_kind) and before.ante_kind != level.ante_kind:
        raise OutOfBounds(f"level {number} changes the ante kind: a structure uses one")
    fields = ("small_blind", "big_blind", "ante")
    for field in fields:
        if getattr(level, field) < getattr(before, field):
            raise OutOfBounds(f"level {number} {field} is below level {number - 1}'s")
    if all(getattr(level, field) == getattr(before, field) for field in fields):
        raise OutOfBounds(f"level {number} repeats level {number - 1}'s blinds and ante")


class LevelClock(NamedTuple):
    """Where a tournament's clock stands: `level_index` (0-based) is the level in force or,
    during a break, the level that starts when it ends; `seconds_to_next` counts to the next
    change (`None` on the last level, which lasts)."""

    level_index: int
    in_break: bool
    seconds_to_next: int | None


def level_at(structure: BlindStructure, elapsed_seconds: int) -> LevelClock:
    """The level (or break) `elapsed_seconds` into the structure; each period is half-open,
    so at the exact second a level ends the next period has begun."""
    try:
        # A tournament's clock may run past one day: like counts, bounded by MAX_AMOUNT.
        check_int(elapsed_seconds, "elapsed_seconds", 0, MAX_AMOUNT)
    except OutOfBounds as exc:
        raise InvalidInput("invalid_clock", exc.message) from None
    breaks = {pause.after_level: pause.minutes for pause in structure.breaks}
    start = 0
    for index, level in enumerate(structure.levels[:-1]):
        end = start + level.minutes * 60
        if elapsed_seconds < end:
            return LevelClock(index, False, end - elapsed_seconds)
        start = end + breaks.get(index + 1, 0) * 60
        if elapsed_seconds < start:
            return LevelClock(index + 1, True, start - elapsed_seconds)
    return LevelClock(len(structure.levels) - 1, False, None)


def to_table_config_fields(level: Level) -> dict[str, int]:
    """The poker table options (croupier.poker.core.table_options) that play `level`."""
    return {
        "small_blind": level.small_blind,
        "big_blind": level.big_blind,
        "ante": level.ante if level.ante_kind == "per_player" else 0,
        "big_blind_ante": level.ante if level.ante_kind == "big_blind" else 0,
    }


# Nice small blinds: m × 10^k for m in 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 (whole chips only:
# 1 2 3 4 5 6 8 10 15 20 25 30 40 50 60 80 100 150 ...); the big blind is twice it, so
# 10/20, 15/30, 25/50, ..., 150/300, 200/400 like a live structure.
_MANTISSA_TENTHS = (10, 15, 20, 25, 30, 40, 50, 60, 80)
NICE = tuple(m * 10**k // 10 for k in range(17) for m in _MANTISSA_TENTHS if m * 10**k % 10 == 0)
# At the target duration a starting stack is worth END_BIG_BLINDS big blinds: a full
# 9-handed table's chips between its last two players average 9 big blinds, push-or-fold
# depth, which ends a Sit & Go within minutes.
END_BIG_BLINDS = 2
# Antes start at this level (1-based): a big-blind ante equals the big blind; a per-player
# ante is the nice value at most 1/8 of the big blind: 10 to 12.5% of it (but 1 chip at a
# 12-chip big blind), none below an 8-chip one.
ANTE_FROM_LEVEL = 4
# A break at the first level end on or past each full hour of play.
BREAK_MINUTES = 5
PLAY_BETWEEN_BREAKS_MINUTES = 60


def _nice_floor(value: int) -> int:
    """The largest nice small blind ≤ `value` (0 below 1)."""
    index = bisect_right(NICE, value)
    return NICE[index - 1] if index else 0


def generate(
    starting_stack: int,
    level_minutes: int,
    target_minutes: int,
    ante_kind: AnteKind = "big_blind",
    start_big_blinds: int = 100,
) -> BlindStructure:
    """A structure that takes `target_minutes` of play from the first level to the last.

    The first big blind is twice the nice small blind at most `starting_stack /
    start_big_blinds / 2` (a stack of about `start_big_blinds` big blinds, at least twice
    `END_BIG_BLINDS`, so the blinds always have room to rise); the last is
    twice the nice small blind at most `starting_stack / END_BIG_BLINDS / 2`. There are
    ⌈target / level⌉ levels of `level_minutes` (breaks come on top), so the last level is
    the one in force at the target duration; their small blinds step evenly through the
    nice series between the two ends, which grows about 29% a step, so the blinds grow
    geometrically. Levels that would repeat a small blind (more levels than nice values
    between the ends) merge into one longer level. Antes of `ante_kind` from
    `ANTE_FROM_LEVEL`; breaks of `BREAK_MINUTES` about every hour of play.
    """
    try:
        check_amount(starting_stack, "starting_stack", low=1)
        check_int(level_minutes, "level_minutes", 1, MAX_MINUTES)
        check_int(target_minutes, "target_minutes", 2, MAX_MINUTES)
        if target_minutes <= level_minutes:
            raise OutOfBounds("target_minutes must be longer than level_minutes (one level)")
        check_int(start_big_blinds, "start_big_blinds", 2 * END_BIG_BLINDS, MAX_AMOUNT)
        if ante_kind not in ANTE_KINDS:
            raise OutOfBounds(f"ante_kind must be one of {', '.join(ANTE_KINDS)}")
    except OutOfBounds as exc:
        raise InvalidInput("invalid_structure", exc.message) from None
    first = _nice_floor(starting_stack // (2 * start_big_blinds))
    last = _nice_floor(starting_stack // (2 * END_BIG_BLINDS))
    if first == 0:  # else `last` is a later nice value: no step of the series doubles
        raise InvalidInput(
            "invalid_structure",
            f"a starting stack of {starting_stack} chips is too small for {start_big_blinds} "
            f"big blinds of at least 2 chips: at least {2 * start_big_blinds} chips",
        )
    first_index, steps = NICE.index(first), NICE.index(last) - NICE.index(first)
    count = -(-target_minutes // level_minutes)
    smalls: list[int] = []
    minutes: list[int] = []
    for j in range(count):
        small = NICE[first_index + j * steps // (count - 1)]
        if smalls and smalls[-1] == small:
            minutes[-1] += level_minutes
        else:
            smalls.append(small)
            minutes.append(level_minutes)
    levels = tuple(
        _level(small, number, ante_kind, length)
        for number, (small, length) in enumerate(zip(smalls, minutes, strict=True), start=1)
    )
    breaks: list[Break] = []
    played = 0
    for number, level in enumerate(levels[:-1], start=1):
        before, played = played, played + level.minutes
        if played // PLAY_BETWEEN_BREAKS_MINUTES > before // PLAY_BETWEEN_BREAKS_MINUTES:
            breaks.append(Break(number, BREAK_MINUTES))
    return BlindStructure(levels, tuple(breaks))


def _level(small: int, number: int, ante_kind: AnteKind, minutes: int) -> Level:
    big = 2 * small
    ante = 0
    if number >= ANTE_FROM_LEVEL and ante_kind == "per_player":
        ante = _nice_floor(big // 8)
    elif number >= ANTE_FROM_LEVEL and ante_kind == "big_blind":
        ante = big
    return Level(small, big, ante, ante_kind if ante else "none", minutes)


class Recipe(NamedTuple):  # a preset's `generate` arguments after the starting stack
    level_minutes: int
    target_minutes: int
    ante_kind: AnteKind
    start_big_blinds: int


PRESETS: dict[str, Recipe] = {
    "hyper": Recipe(3, 30, "big_blind", 25),  # a Spin (rule 53): 500 chips, 10/20 to 100/200
    "turbo": Recipe(5, 90, "big_blind", 100),
    "regular": Recipe(10, 180, "big_blind", 100),
    "deep": Recipe(20, 360, "big_blind", 200),
}


def preset(name: str, starting_stack: int) -> BlindStructure:
    """The structure a preset name makes for `starting_stack`."""
    recipe = PRESETS.get(name) if isinstance(name, str) else None
    if recipe is None:
        raise InvalidInput(
            "unknown_structure",
            f"unknown blind structure {echo(name)}; known: {', '.join(sorted(PRESETS))}",
        )
    return generate(starting_stack, *recipe)
