"""A tournament's configuration and its bounds (croupier.game.limits; rules 8, 11, 13, 14,
18, 19, 47)."""

from __future__ import annotations

import pytest

from croupier.game.limits import MAX_AMOUNT
from croupier.tournament.core.errors import InvalidInput
from croupier.tournament.core.options import Level, Options, RebuyPolicy
from croupier.tournament.core.state import new_tournament

from .play import chips, tournament

LEVELS = (Level(10, 2),)


def test_rule_8_every_entrant_starts_with_the_starting_stack_at_level_1() -> None:
    state = tournament(("a", "b", "c"), start=1500)
    assert chips(state) == {"a": 1500, "b": 1500, "c": 1500}
    assert state.level == 1 and not state.finished


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"starting_chips": 0}, "starting_chips"),
        ({"starting_chips": MAX_AMOUNT + 1}, "starting_chips"),
        ({"starting_chips": 10.0}, "starting_chips"),
        ({"starting_chips": True}, "starting_chips"),
        ({"table_size": 1}, "table_size"),
        ({"levels": ()}, "levels"),
        ({"levels": (Level(-1, 1),)}, "round_fee"),
        ({"levels": (Level(1, MAX_AMOUNT + 1),)}, "chip_ratio"),
        ({"prizes": (10, -1)}, "prize for place 2"),
        ({"prizes": (MAX_AMOUNT, 1)}, "sum of the prizes"),
        ({"rebuys": RebuyPolicy(-1, 2)}, "max rebuys"),
        ({"rebuys": RebuyPolicy(1, 0)}, "max rebuy level"),
        ({"rebuys": RebuyPolicy(MAX_AMOUNT, 1)}, "starting_chips × players"),
        ({"winner_risk_limit": 1}, "winner_risk_limit"),
    ],
)
def test_options_out_of_bounds_are_refused_naming_the_field(
    changes: dict[str, object], field: str
) -> None:
    values: dict[str, object] = {"starting_chips": 1000, "table_size": 4, "levels": LEVELS}
    values.update(changes)
    with pytest.raises(InvalidInput) as refused:
        Options(**values)  # type: ignore[arg-type]
    assert refused.value.reason == "invalid_options" and field in refused.value.message
    assert len(refused.value.message) < 200


def test_the_chips_every_entrant_and_rebuy_could_bring_stay_within_max_amount() -> None:
    options = Options(starting_chips=MAX_AMOUNT // 4, table_size=2, levels=LEVELS)
    assert len(new_tournament(options, ["a", "b", "c", "d"]).entrants) == 4
    with pytest.raises(InvalidInput, match="at most"):
        new_tournament(options, ["a", "b", "c", "d", "e"])
    rebuys = Options(
        starting_chips=MAX_AMOUNT // 4, table_size=2, levels=LEVELS, rebuys=RebuyPolicy(1, 1)
    )
    with pytest.raises(InvalidInput, match="at most"):
        new_tournament(rebuys, ["a", "b", "c"])


@pytest.mark.parametrize(
    ("players", "reason"),
    [(["a"], "too_few_players"), (["a", "a"], "duplicate_player"), (["a", ""], "invalid_player")],
)
def test_a_tournament_needs_two_distinct_named_players(players: list[str], reason: str) -> None:
    options = Options(starting_chips=100, table_size=2, levels=LEVELS)
    with pytest.raises(InvalidInput) as refused:
        new_tournament(options, players)
    assert refused.value.reason == reason
