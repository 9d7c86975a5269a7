"""Poker tournament blind structures (rules 52 and 54): validation, the clock across levels
and breaks, the generator's documented properties, presets, and the table options a level
gives the poker engine."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.game.limits import MAX_AMOUNT
from croupier.poker.core.table_options import table_options
from croupier.tournament.core.blinds import (
    ANTE_FROM_LEVEL,
    BREAK_MINUTES,
    END_BIG_BLINDS,
    NICE,
    PRESETS,
    BlindStructure,
    Break,
    Level,
    LevelClock,
    generate,
    level_at,
    preset,
    to_table_config_fields,
)
from croupier.tournament.core.errors import InvalidInput
from tests.support.refusals import status_name


def lv(small: int, big: int, ante: int = 0, kind: Any = "none", minutes: int = 10) -> Level:
    return Level(small, big, ante, kind, minutes)


@pytest.mark.parametrize(
    ("levels", "breaks", "field"),
    [
        ((), (), "at least one level"),
        ((lv(30, 20),), (), "level 1 small_blind must be between 1 and 20"),
        ((lv(0, 0),), (), "level 1 big_blind"),
        ((lv(1, MAX_AMOUNT + 1),), (), "level 1 big_blind"),
        ((lv(1, 2.5),), (), "level 1 big_blind must be a whole number"),  # type: ignore[arg-type]
        ((lv(1, 2, 1, "straddle"),), (), "ante_kind must be one of none, per_player, big_blind"),
        ((lv(1, 2, 1, "none"),), (), "level 1 ante (ante_kind none)"),
        ((lv(1, 2, 0, "per_player"),), (), "level 1 ante"),
        ((lv(1, 2, -2, "big_blind"),), (), "level 1 ante"),
        ((lv(1, 2, minutes=0),), (), "level 1 minutes"),
        ((lv(1, 2, minutes=24 * 60 + 1),), (), "level 1 minutes must be between 1 and 1440"),
        ((lv(10, 20), lv(10, 15)), (), "level 2 big_blind is below level 1's"),
        ((lv(10, 20), lv(10, 20)), (), "level 2 repeats level 1's blinds and ante"),
        ((lv(10, 20, 20, "big_blind"), lv(15, 30)), (), "level 2 ante is below level 1's"),
        (
            (lv(10, 20, 2, "per_player"), lv(15, 30, 30, "big_blind")),
            (),
            "level 2 changes the ante kind",
        ),
        (("10/20",), (), "level 1 must be a Level"),
        ((lv(10, 20), lv(20, 40)), (Break(2, 5),), "none after the last (level 2)"),
        ((lv(1, 2), lv(2, 4), lv(3, 6)), (Break(2, 5), Break(1, 5)), "in level order"),
        ((lv(1, 2), lv(2, 4), lv(3, 6)), (Break(1, 5), Break(1, 5)), "got one after level 1"),
        ((lv(1, 2), lv(2, 4)), (Break(0, 5),), "after_level must be between 1"),
        ((lv(1, 2), lv(2, 4)), (Break(1, 0),), "the break after level 1: minutes"),
        ((lv(1, 2), lv(2, 4)), ((1, 5),), "a break must be a Break"),
    ],
)
def test_rule_52_a_malformed_blind_structure_is_refused_naming_what_is_wrong(
    levels: tuple[Any, ...], breaks: tuple[Any, ...], field: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        BlindStructure(levels, breaks)
    assert refused.value.reason == "invalid_structure"
    assert status_name(refused.value) == "invalid_argument"
    assert field in refused.value.message and len(refused.value.message) < 200


def test_levels_may_rise_by_the_ante_alone_and_start_antes_after_levels_without() -> None:
    structure = BlindStructure(
        (lv(100, 200), lv(100, 200, 200, "big_blind"), lv(150, 300, 300, "big_blind")),
        (Break(1, 5),),
    )
    assert len(structure.levels) == 3


# Level 1 (10 min), level 2 (10 min), a 5-minute break, level 3 (15 min), a 1-minute break,
# level 4 (last: lasts).
CLOCKED = BlindStructure(
    (lv(10, 20), lv(15, 30), lv(20, 40, minutes=15), lv(30, 60)), (Break(2, 5), Break(3, 1))
)


@pytest.mark.parametrize(
    ("elapsed", "clock"),
    [
        (0, LevelClock(0, False, 600)),
        (599, LevelClock(0, False, 1)),
        (600, LevelClock(1, False, 600)),  # a level ends on its last second: the next starts
        (1199, LevelClock(1, False, 1)),
        (1200, LevelClock(2, True, 300)),  # the break after level 2: level 3 comes next
        (1499, LevelClock(2, True, 1)),
        (1500, LevelClock(2, False, 900)),
        (2399, LevelClock(2, False, 1)),
        (2400, LevelClock(3, True, 60)),
        (2459, LevelClock(3, True, 1)),
        (2460, LevelClock(3, False, None)),
        (10**9, LevelClock(3, False, None)),  # the last level stays in force
    ],
)
def test_rule_54_level_at_places_the_clock_in_levels_and_breaks_at_their_boundaries(
    elapsed: int, clock: LevelClock
) -> None:
    assert level_at(CLOCKED, elapsed) == clock


def test_a_one_level_structure_is_always_at_its_only_level() -> None:
    assert level_at(BlindStructure((lv(1, 2),)), 0) == LevelClock(0, False, None)


@pytest.mark.parametrize("elapsed", [-1, 1.5, True, "60", MAX_AMOUNT + 1])
def test_level_at_refuses_a_clock_reading_that_is_not_whole_non_negative_seconds(
    elapsed: Any,
) -> None:
    with pytest.raises(InvalidInput) as refused:
        level_at(CLOCKED, elapsed)
    assert refused.value.reason == "invalid_clock" and "elapsed_seconds" in refused.value.message


@pytest.mark.parametrize(
    ("level", "fields"),
    [
        (lv(25, 50), {"small_blind": 25, "big_blind": 50, "ante": 0, "big_blind_ante": 0}),
        (
            lv(25, 50, 5, "per_player"),
            {"small_blind": 25, "big_blind": 50, "ante": 5, "big_blind_ante": 0},
        ),
        (
            lv(25, 50, 50, "big_blind"),
            {"small_blind": 25, "big_blind": 50, "ante": 0, "big_blind_ante": 50},
        ),
    ],
)
def test_a_level_gives_the_poker_table_options_the_engine_reads(
    level: Level, fields: dict[str, int]
) -> None:
    assert to_table_config_fields(level) == fields
    config = table_options(dict(fields)).config
    assert (config.small_blind, config.big_blind) == (level.small_blind, level.big_blind)
    assert (config.ante, config.big_blind_ante) == (fields["ante"], fields["big_blind_ante"])


def test_the_hyper_preset_is_a_spin_structure_from_10_20_to_100_200() -> None:
    structure = preset("hyper", 500)
    blinds = [(level.small_blind, level.big_blind) for level in structure.levels]
    smalls = [10, 15, 20, 25, 30, 40, 50, 60, 80, 100]
    assert blinds == [(small, 2 * small) for small in smalls]
    assert {level.minutes for level in structure.levels} == {3}
    assert [level.ante_kind for level in structure.levels[:3]] == ["none"] * 3
    assert all(
        level.ante_kind == "big_blind" and level.ante == level.big_blind
        for level in structure.levels[3:]
    )
    assert structure.breaks == ()  # 30 minutes of play: no hour reached


def test_the_regular_preset_breaks_five_minutes_at_each_full_hour_of_play() -> None:
    structure = preset("regular", 1500)
    assert structure.breaks == (Break(5, BREAK_MINUTES), Break(10, BREAK_MINUTES))
    ends = [sum(level.minutes for level in structure.levels[:n]) for n in (5, 10)]
    assert ends == [60, 120]
    # the break after level 5 runs from 60 to 65 minutes into the tournament
    assert level_at(structure, 60 * 60 - 1) == LevelClock(4, False, 1)
    assert level_at(structure, 60 * 60) == LevelClock(5, True, 300)
    assert level_at(structure, 65 * 60) == LevelClock(5, False, 600)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_makes_a_valid_structure(name: str) -> None:
    structure = preset(name, 10_000)
    assert structure.levels[0].big_blind < structure.levels[-1].big_blind


@pytest.mark.parametrize("name", ["", "Turbo", "x" * 10_000, None])
def test_an_unknown_structure_name_is_refused_naming_the_known_ones(name: Any) -> None:
    with pytest.raises(InvalidInput) as refused:
        preset(name, 1500)
    assert refused.value.reason == "unknown_structure"
    assert refused.value.message.endswith("known: deep, hyper, regular, turbo")
    assert len(refused.value.message) < 200


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((199, 10, 180), "at least 200 chips"),
        ((0, 10, 180), "starting_stack"),
        ((1500, 0, 180), "level_minutes"),
        ((1500, 24 * 60 + 1, 180), "level_minutes"),
        ((1500, 10, 10), "target_minutes must be longer than level_minutes"),
        ((1500, 24 * 60, 24 * 60), "target_minutes must be longer than level_minutes"),
        ((1500, 10, 1), "target_minutes must be between 2 and 1440"),
        ((1500, 10, 24 * 60 + 1), "target_minutes"),
        ((1500, 10, 180, "straddle"), "ante_kind"),
        ((1500, 10, 180, "none", 3), "start_big_blinds must be between 4"),
    ],
)
def test_the_generator_refuses_arguments_it_cannot_build_from(
    args: tuple[Any, ...], field: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        generate(*args)
    assert refused.value.reason == "invalid_structure" and field in refused.value.message


@st.composite
def recipes(draw: st.DrawFn) -> tuple[int, int, int, Any, int]:
    start = draw(st.integers(2 * END_BIG_BLINDS, 400))
    stack = draw(st.integers(2 * start, 10**12))
    level_minutes = draw(st.integers(1, 90))
    target = draw(st.integers(level_minutes + 1, 24 * 60))
    return (
        stack,
        level_minutes,
        target,
        draw(st.sampled_from(["none", "per_player", "big_blind"])),
        start,
    )


@settings(max_examples=300, deadline=None)
@given(recipes())
def test_generated_structures_rise_in_nice_blinds_to_the_documented_target(
    recipe: tuple[int, int, int, Any, int],
) -> None:
    stack, level_minutes, target, ante_kind, start = recipe
    structure = generate(stack, level_minutes, target, ante_kind, start)
    levels = structure.levels
    bigs = [level.big_blind for level in levels]
    assert all(a < b for a, b in itertools.pairwise(bigs))
    for level in levels:
        assert level.small_blind in NICE and level.big_blind == 2 * level.small_blind
        assert level.minutes % level_minutes == 0
    # First: the largest nice big blind with about `start` big blinds in the stack; last:
    # the largest with END_BIG_BLINDS (the next nice value would be more).
    nice_above = {a: b for a, b in itertools.pairwise(NICE)}
    assert bigs[0] * start <= stack < 2 * nice_above[levels[0].small_blind] * start
    assert bigs[-1] * END_BIG_BLINDS <= stack < 2 * nice_above[levels[-1].small_blind] * 2
    # ⌈target / level⌉ levels of play: the last is the one in force at the target.
    played = [level.minutes for level in levels]
    assert sum(played) == -(-target // level_minutes) * level_minutes
    assert sum(played[:-1]) < target <= sum(played)


@settings(max_examples=200, deadline=None)
@given(recipes())
def test_generated_antes_and_breaks_follow_the_documented_rules(
    recipe: tuple[int, int, int, Any, int],
) -> None:
    stack, level_minutes, target, ante_kind, start = recipe
    structure = generate(stack, level_minutes, target, ante_kind, start)
    for number, level in enumerate(structure.levels, start=1):
        big, ante = level.big_blind, level.ante
        if (
            number < ANTE_FROM_LEVEL
            or ante_kind == "none"
            or (ante_kind, big < 8)
            == (
                "per_player",
                True,
            )
        ):
            assert (level.ante_kind, ante) == ("none", 0)
        elif ante_kind == "big_blind":
            assert (level.ante_kind, ante) == ("big_blind", big)
        else:
            assert level.ante_kind == "per_player" and ante in NICE
            assert 8 * ante <= big and (10 * ante >= big or big == 12)
    # A break at the first level end on or past each full hour of play, except the last.
    ends = [0]
    for level in structure.levels:
        ends.append(ends[-1] + level.minutes)
    expected = []
    for hour in range(1, ends[-2] // 60 + 1):
        expected.append(next(n for n in range(1, len(ends)) if ends[n] >= 60 * hour))
    assert [pause.after_level for pause in structure.breaks] == sorted(set(expected))
    assert {pause.minutes for pause in structure.breaks} <= {BREAK_MINUTES}
