"""Every refused action names its reason, reads well, and leaves the state as it was."""

from __future__ import annotations

import copy

import pytest

from croupier.game.limits import MAX_AMOUNT
from croupier.tournament.core.actions import Action, EndRound, StartRound, end_round
from croupier.tournament.core.errors import InvalidInput, Refused
from croupier.tournament.core.standings import apply
from tests.support.refusals import status_name

from .play import LEVEL, begin, cancel, finish, rebuy, run, tournament

STATE = run(
    tournament(("a", "b", "c", "d", "e"), start=100, table_size=3, rebuys=(1, 1)),
    begin("r1", "a", "b"),
    finish("r1", "a", b=100),
    begin("r2", "c", "d"),
)
LONG = "x" * 10_000


@pytest.mark.parametrize(
    ("action", "reason", "status"),
    [
        (begin("r3", "e", "zed"), "unknown_player", "not_found"),
        (begin("r3", "e", LONG), "unknown_player", "not_found"),
        (begin("r3", "e", "b"), "player_eliminated", "failed_precondition"),
        (begin("r3", "e", "c"), "player_busy", "failed_precondition"),
        (begin("r3", "e"), "table_size", "invalid_argument"),
        (begin("r3", "a", "e", "a"), "duplicate_player", "invalid_argument"),
        (StartRound("r3", ("a", "e", "c", "d")), "table_size", "invalid_argument"),
        (begin("r1", "a", "e"), "round_id_used", "failed_precondition"),
        (begin("", "a", "e"), "invalid_round", "invalid_argument"),
        (finish("r9", "c", d=1), "unknown_round", "not_found"),
        (finish("r1", "a", b=1), "round_finished", "failed_precondition"),
        (cancel("r1"), "round_finished", "failed_precondition"),
        (finish("r2", "a", d=1), "winner_not_at_table", "invalid_argument"),
        (finish("r2", "c", e=1), "wrong_losers", "invalid_argument"),
        (finish("r2", "c"), "wrong_losers", "invalid_argument"),
        (EndRound("r2", "c", (("d", 1), ("d", 2))), "wrong_losers", "invalid_argument"),
        (finish("r2", "c", d=1, c=1), "wrong_losers", "invalid_argument"),
        (rebuy("zed"), "unknown_player", "not_found"),
        (rebuy("a"), "stack_above_start", "failed_precondition"),
    ],
)
def test_a_refused_action_names_its_reason_and_changes_nothing(
    action: Action, reason: str, status: str
) -> None:
    before = copy.deepcopy(STATE)
    with pytest.raises(Refused) as refused:
        apply(STATE, action)
    assert before == STATE
    assert (refused.value.reason, status_name(refused.value)) == (reason, status)
    assert 0 < len(refused.value.message) < 200
    assert apply(STATE, LEVEL)[0].level == 2  # the state still takes actions


@pytest.mark.parametrize("value", [-1, 2.5, 3.0, "5", None, True, MAX_AMOUNT + 1])
def test_negative_points_that_are_not_whole_numbers_in_bounds_are_invalid(value: object) -> None:
    with pytest.raises(InvalidInput) as refused:
        end_round("r2", "c", {"d": value})
    assert refused.value.reason == "invalid_negative_points"
    assert "negative points of 'd'" in refused.value.message
