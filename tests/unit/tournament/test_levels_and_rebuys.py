"""Levels, the level-up bonus, rebuys, elimination and the final table
(docs/rules/rummy-tournaments.md rules 2, 9, 11-19, 34; vectors 12-16, 19; OQ 3-7, 17)."""

from __future__ import annotations

import pytest

from croupier.tournament.core.actions import (
    FinalTableStarted,
    LevelRaised,
    PlayerEliminated,
    RebuyAccepted,
    RebuyCredited,
    TournamentFinished,
)
from croupier.tournament.core.errors import NotAllowed, Refused
from croupier.tournament.core.standings import apply
from croupier.tournament.core.state import Tournament, can_rebuy, idle_players, players_in

from .play import LEVEL, begin, cancel, chips, finish, points, rebuy, run, tournament


def _refused(state: Tournament, player: str) -> str:
    """The reason a rebuy is refused, checking the refusal leaves the state as it was."""
    assert not can_rebuy(state, player)
    with pytest.raises(Refused) as refusal:
        apply(state, rebuy(player))
    return refusal.value.reason


def test_rule_18_every_tournament_starts_at_level_1_and_each_level_action_adds_one() -> None:
    state = tournament(levels=[(0, 1), (10, 2)])
    assert state.level == 1
    assert run(state, LEVEL, LEVEL).level == 3


def test_rule_19_past_the_last_listed_level_its_terms_stay_in_force() -> None:
    state = run(tournament(levels=[(0, 1), (10, 2)]), LEVEL, LEVEL, LEVEL)
    _, events = apply(state, begin("r1", "ann", "bob"))
    assert events[0].fees == (10, 10)  # type: ignore[union-attr]


def test_rule_19_oq_17_a_round_keeps_the_terms_of_the_level_it_started_at() -> None:
    state = tournament(("ann", "bob"), levels=[(10, 1), (50, 5)])
    state = run(state, begin("r1", "ann", "bob"), LEVEL, finish("r1", "ann", bob=10))
    assert chips(state) == {"ann": 1020, "bob": 980}  # fee 10, ratio 1, not 50 and 5


def test_vector_19_rule_34_oq_17_a_new_level_gives_2_to_every_player_still_in() -> None:
    state = tournament(("a", "b", "c"), start=800)
    state = run(state, begin("r1", "a", "b"), finish("r1", "a", b=800))
    assert state.eliminated == ("b",)
    before = points(state)
    state, events = apply(state, LEVEL)
    assert events == (LevelRaised(2, ("a", "c")),)
    assert points(state) == {"a": before["a"] + 2, "b": before["b"], "c": before["c"] + 2}


def test_oq_17_a_player_with_every_chip_in_a_running_pot_still_gets_the_level_bonus() -> None:
    state = tournament(("a", "b"), start=100, levels=[(100, 1)])
    state, events = apply(run(state, begin("r1", "a", "b")), LEVEL)
    assert chips(state) == {"a": 0, "b": 0}
    assert events == (LevelRaised(2, ("a", "b")),)


def test_rule_9_a_player_with_0_chips_at_the_end_of_a_round_is_out() -> None:
    state = tournament(("a", "b", "c"), start=100)
    state, events = apply(run(state, begin("r1", "a", "b")), finish("r1", "a", b=100))
    assert PlayerEliminated("b", False) in events
    assert state.eliminated == ("b",) and players_in(state) == ("a", "c")
    with pytest.raises(NotAllowed) as refused:
        apply(state, begin("r2", "b", "c"))
    assert refused.value.reason == "player_eliminated"


def test_rule_9_with_every_chip_in_the_pot_a_player_is_not_out_until_the_round_ends() -> None:
    state = run(tournament(("a", "b", "c"), start=100, levels=[(100, 1)]), begin("r1", "a", "b"))
    assert chips(state)["a"] == 0 and players_in(state) == ("a", "b", "c")


def test_rule_2_the_tournament_ends_when_one_player_holds_every_chip() -> None:
    state = tournament(("a", "b"), start=100)
    state, events = apply(run(state, begin("r1", "a", "b")), finish("r1", "a", b=100))
    assert events[-1] == TournamentFinished("a")
    assert state.finished and chips(state) == {"a": 200, "b": 0}
    with pytest.raises(NotAllowed) as refused:
        apply(state, LEVEL)
    assert refused.value.reason == "tournament_over"


def test_rule_11_a_tournament_without_rebuys_refuses_every_rebuy() -> None:
    state = tournament(("a", "b", "c"), start=100)
    state = run(state, begin("r1", "a", "b"), finish("r1", "a", b=100))
    assert _refused(state, "b") == "no_rebuys"
    assert _refused(state, "c") == "no_rebuys"


def test_vector_16_rules_12_17_a_player_out_may_rebuy_before_the_next_round_starts() -> None:
    state = tournament(("a", "b", "c"), start=1500, rebuys=(1, 3))
    state = run(state, begin("r1", "a", "b"), finish("r1", "a", b=1500))
    assert can_rebuy(state, "b")
    state, events = apply(state, rebuy("b"))
    assert events == (RebuyAccepted("b", credited=True),)
    assert chips(state)["b"] == 1500 and state.eliminated == ()
    assert "b" in idle_players(state)  # free to be seated at a table again
    assert state.entrants["b"].rebuys == 1


def test_rule_17_oq_6_the_rebuy_window_closes_when_the_next_round_starts() -> None:
    state = tournament(("a", "b", "c", "d"), start=100, rebuys=(1, 3))
    state = run(state, begin("r1", "a", "b"), finish("r1", "a", b=100), begin("r2", "c", "d"))
    assert _refused(state, "b") == "rebuy_window_closed"
    assert state.eliminated == ("b",)


def test_oq_7_a_rebuy_keeps_the_players_tournament_points() -> None:
    state = tournament(("a", "b", "c"), start=100, rebuys=(1, 3))
    state = run(state, begin("r1", "a", "b"), finish("r1", "a", b=100), rebuy("b"))
    assert points(state)["b"] == 1


def test_vector_12_rule_16_oq_3_in_a_round_chips_in_hand_plus_fee_paid_at_most_start() -> None:
    state = tournament(("a", "b", "c", "d"), rebuys=(2, 3), levels=[(0, 1), (50, 1)])
    state = run(state, begin("r0", "a", "b"), finish("r0", "b", a=10), LEVEL)
    state = run(state, begin("r1", "a", "c"), begin("r2", "b", "d"))
    # Start 1000, fee 50 paid: 940 in hand → 990 ≤ 1000, allowed; 960 → 1010, refused.
    assert chips(state)["a"] == 940 and can_rebuy(state, "a")
    assert chips(state)["b"] == 960 and _refused(state, "b") == "stack_above_start"


def test_rule_16_oq_3_a_rebuy_in_a_round_is_credited_when_the_round_ends() -> None:
    state = tournament(("a", "b", "c"), start=100, rebuys=(2, 3), levels=[(50, 1)])
    state = run(state, begin("r1", "a", "b"), rebuy("a"))
    assert chips(state)["a"] == 50 and state.entrants["a"].rebuys == 1
    # Not at risk in this round: a loses everything he had and keeps the rebuy.
    state, events = apply(state, finish("r1", "b", a=1000))
    assert RebuyCredited("a", 100) in events
    assert chips(state) == {"a": 100, "b": 200, "c": 100}
    assert state.eliminated == ()


def test_rule_16_oq_3_a_rebuy_not_yet_credited_counts_as_chips_he_will_hold() -> None:
    # Start 1500, fee 10 paid, 1490 in hand: 1490 + 10 ≤ 1500, the first rebuy is allowed.
    # The second would be 1490 + 10 + the 1500 owed when the round ends = 3000 > 1500:
    # refused by rule 16 although the count (3) would allow it.
    state = tournament(("a", "b", "c"), start=1500, rebuys=(3, 3), levels=[(10, 1)])
    state = run(state, begin("r1", "a", "b"), rebuy("a"))
    assert chips(state)["a"] == 1490 and state.entrants["a"].pending == 1
    assert _refused(state, "a") == "stack_above_start"
    with pytest.raises(NotAllowed) as refusal:
        apply(state, rebuy("a"))
    assert "1490 + 10 + 1500" in refusal.value.message
    assert (state.entrants["a"].rebuys, state.entrants["a"].pending) == (1, 1)  # unchanged
    # The one rebuy is credited once, and he never holds more than a rebuy's top-up.
    state, events = apply(state, cancel("r1"))
    assert RebuyCredited("a", 1500) in events
    assert chips(state)["a"] == 3000
    assert _refused(state, "a") == "stack_above_start"  # between rounds: 3000 > 1500


def test_rule_16_a_short_stack_rebuys_once_in_a_round_not_twice() -> None:
    """50 in hand + 50 paid: one rebuy; a second would count the 100 owed to him."""
    state = tournament(("a", "b", "c"), start=100, rebuys=(2, 3), levels=[(50, 1)])
    state = run(state, begin("r1", "a", "b"), rebuy("a"))
    assert chips(state)["a"] == 50
    assert _refused(state, "a") == "stack_above_start"  # 50 + 50 + 100 > 100
    state, events = apply(state, finish("r1", "b", a=1000))
    assert RebuyCredited("a", 100) in events
    assert chips(state)["a"] == 100 and state.entrants["a"].rebuys == 1


def test_rule_16_a_player_between_rounds_may_rebuy_while_his_chips_are_at_most_start() -> None:
    state = tournament(("a", "b", "c"), start=100, rebuys=(1, 3))
    state = run(state, begin("r1", "a", "b"), finish("r1", "a", b=1))
    assert chips(state) == {"a": 101, "b": 99, "c": 100}
    assert _refused(state, "a") == "stack_above_start"
    state, events = apply(state, rebuy("b"))
    assert events == (RebuyAccepted("b", credited=True),) and chips(state)["b"] == 199


def test_vector_13_rule_14_rebuys_up_to_the_maximum_level() -> None:
    state = run(tournament(start=100, rebuys=(5, 3)), LEVEL, LEVEL)
    assert state.level == 3 and can_rebuy(state, "ann")
    assert _refused(run(state, LEVEL), "ann") == "rebuy_level"


def test_vector_14_rule_13_a_player_rebuys_at_most_the_configured_number_of_times() -> None:
    state = run(tournament(start=100, rebuys=(2, 3)), rebuy("ann"))
    state = run(state, begin("r1", "ann", "bob"), finish("r1", "bob", ann=200), rebuy("ann"))
    assert state.entrants["ann"].rebuys == 2
    assert _refused(state, "ann") == "rebuy_limit"


def test_vector_15_rule_15_oq_4_no_rebuy_once_the_final_table_has_started() -> None:
    state = tournament(("a", "b", "c"), start=100, rebuys=(3, 9), levels=[(10, 1)])
    state = run(state, begin("r1", "a", "b"), finish("r1", "a", b=30))
    assert can_rebuy(state, "b")
    state = run(state, begin("r2", "a", "b", "c"))
    assert _refused(state, "b") == "final_table"
    state = run(state, finish("r2", "a", b=1, c=1))
    assert _refused(state, "b") == "final_table"  # still refused after the first round


def test_oq_5_the_final_table_is_the_first_round_seating_every_player_still_in() -> None:
    state = tournament(("a", "b", "c", "d"), start=100, table_size=3)
    state = run(state, begin("r1", "a", "b", "c"), finish("r1", "a", b=1, c=1))
    assert state.final_table is None
    state = run(state, begin("r2", "d", "a"), finish("r2", "a", d=100))
    assert state.final_table is None
    state, events = apply(state, begin("r3", "c", "b", "a"))
    assert FinalTableStarted(("c", "b", "a")) in events
    assert state.final_table == ("c", "b", "a")
