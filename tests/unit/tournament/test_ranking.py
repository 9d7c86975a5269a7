"""Ranking, ties and prizes (docs/rules/rummy-tournaments.md rules 35-41, 47; vectors 20,
21; OQ 18, 20, 21)."""

from __future__ import annotations

from croupier.tournament.core.ranking import Place, prizes, ranking, split_prizes
from croupier.tournament.core.state import Tournament

from .play import begin, finish, run, tournament


def _places(state: Tournament) -> list[tuple[int, tuple[str, ...]]]:
    return [(entry.place, entry.players) for entry in ranking(state)]


def test_rule_35_oq_20_players_still_in_rank_by_chips_equal_chips_share_a_place() -> None:
    state = tournament(("a", "b", "c", "d"), start=100)
    state = run(state, begin("r1", "a", "b"), finish("r1", "b", a=30))
    assert _places(state) == [(1, ("b",)), (2, ("c", "d")), (4, ("a",))]


def test_rule_35_chips_in_a_running_pot_do_not_count_in_the_live_ranking() -> None:
    state = tournament(("a", "b", "c"), start=100, levels=[(40, 1)])
    state = run(state, begin("r1", "a", "b"))
    assert _places(state) == [(1, ("c",)), (2, ("a", "b"))]


def test_rule_36_41_players_out_before_the_final_table_rank_by_points_not_by_time() -> None:
    # b goes out first with 1 point; c later with 1 too, d last with 3: d ranks above
    # both, b and c tie whatever the order they went out in.
    state = tournament(("a", "b", "c", "d", "e"), start=100, winner_risk_limit=False)
    state = run(state, begin("r1", "a", "b"), finish("r1", "a", b=100))
    state = run(state, begin("r2", "c", "d"), finish("r2", "d", c=100))
    state = run(state, begin("r3", "d", "e"), finish("r3", "e", d=200))
    assert state.final_table is None
    assert _places(state) == [(1, ("e",)), (2, ("a",)), (3, ("d",)), (4, ("b", "c"))]


def test_vector_20_rules_37_38_final_table_players_rank_by_elimination_order() -> None:
    state = tournament(("a", "b", "c", "d", "e"), start=100, prizes=[400, 300, 200, 100])
    state = run(state, begin("r0", "e", "a"), finish("r0", "a", e=100))
    state = run(state, begin("r1", "a", "b", "c", "d"), finish("r1", "a", b=0, c=0, d=100))
    state = run(state, begin("r2", "a", "b", "c"), finish("r2", "a", b=0, c=100))
    # e has more tournament points than d and c but went out before the final table.
    state = run(state, begin("r3", "a", "b"), finish("r3", "a", b=100))
    assert state.finished
    assert _places(state) == [(1, ("a",)), (2, ("b",)), (3, ("c",)), (4, ("d",)), (5, ("e",))]
    assert prizes(state) == {"a": 400, "b": 300, "c": 200, "d": 100, "e": 0}


def test_rule_37_every_final_table_player_ranks_above_everyone_out_before_it() -> None:
    state = tournament(("a", "b", "c"), start=100, winner_risk_limit=False)
    state = run(state, begin("r1", "c", "b"), finish("r1", "c", b=1))
    state = run(state, begin("r2", "c", "b"), finish("r2", "c", b=1))
    state = run(state, begin("r3", "a", "c"), finish("r3", "a", c=500))
    assert state.eliminated == ("c",) and state.final_table is None
    state = run(state, begin("r4", "a", "b"), finish("r4", "a", b=500))
    assert state.final_table == ("a", "b")
    assert state.entrants["c"].points == 7 > state.entrants["b"].points == 3
    assert _places(state) == [(1, ("a",)), (2, ("b",)), (3, ("c",))]


def test_rule_40_players_out_at_the_same_final_table_round_end_share_a_place() -> None:
    state = tournament(("a", "b", "c", "d"), start=100, prizes=[100, 50, 20, 11])
    state = run(state, begin("r1", "a", "b", "c", "d"), finish("r1", "a", b=0, c=100, d=100))
    state = run(state, begin("r2", "a", "b"), finish("r2", "a", b=100))
    assert _places(state) == [(1, ("a",)), (2, ("b",)), (3, ("c", "d"))]
    assert prizes(state) == {"a": 100, "b": 50, "c": 16, "d": 15}


def test_vector_21_rule_40_oq_18_tied_points_share_the_prizes_of_their_places() -> None:
    state = tournament(("a", "b", "c", "d", "e"), start=100, prizes=[500, 300, 150, 31, 20])
    state = run(state, begin("r1", "d", "a"), begin("r2", "e", "b"))
    state = run(state, finish("r1", "a", d=100), finish("r2", "b", e=100))
    state = run(state, begin("r3", "a", "b", "c"), finish("r3", "a", b=0, c=100))
    state = run(state, begin("r4", "a", "b"), finish("r4", "a", b=200))
    assert (4, ("d", "e")) in _places(state)
    # Places 4 and 5 pool 31 + 20 = 51: 25 each, the odd unit to d, registered first.
    assert prizes(state) == {"a": 500, "b": 300, "c": 150, "d": 26, "e": 25}


def test_oq_18_the_remainder_goes_a_unit_at_a_time_in_registration_order() -> None:
    places = [Place(1, ("w",)), Place(2, ("x", "y", "z"))]
    assert split_prizes(places, [10, 7, 3, 1]) == {"w": 10, "x": 4, "y": 4, "z": 3}
    assert split_prizes(places, [10, 4, 1]) == {"w": 10, "x": 2, "y": 2, "z": 1}
    # Places past the payout table win 0, and nothing is lost or made up.
    assert split_prizes([Place(1, ("w", "x"))], [1]) == {"w": 1, "x": 0}


def test_rule_47_prizes_are_paid_only_when_the_tournament_ends() -> None:
    state = tournament(("a", "b", "c"), start=100, prizes=[60, 30, 10])
    state = run(state, begin("r1", "a", "b"), finish("r1", "a", b=100))
    assert prizes(state) is None
    state = run(state, begin("r2", "a", "c"), finish("r2", "a", c=100))
    assert prizes(state) == {"a": 60, "b": 10, "c": 30}


def test_rule_39_without_rebuys_an_eliminated_players_place_only_improves() -> None:
    state = tournament(("a", "b", "c", "d"), start=100)
    state = run(state, begin("r1", "a", "b"), finish("r1", "a", b=100))
    assert _places(state)[-1] == (4, ("b",))
    state = run(state, begin("r2", "c", "d"), finish("r2", "c", d=100))
    assert (3, ("b", "d")) in _places(state)
    state = run(state, begin("r3", "a", "c"), finish("r3", "a", c=200))
    assert _places(state) == [(1, ("a",)), (2, ("c",)), (3, ("b", "d"))]
