"""Seed 000 seating (docs/rules/rummy-tournaments.md): rule 7 (random tables and seats from
the injected seed, recorded), rule 42 and OQ 22 (close tables minimising empty seats, then
waiting players, then moves; never break a running round), OQ 5 (the final table)."""

from __future__ import annotations

import hashlib
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.game.fairness import FairStream
from croupier.tournament.core.errors import InvalidInput
from croupier.tournament.core.seating import (
    Move,
    Table,
    apply_moves,
    final_table_due,
    initial_seating,
    rummy_rebalance,
)
from tests.support.refusals import status_name

SEED = bytes(range(32))
OTHER = bytes(32)


def seed(n: int) -> bytes:
    return hashlib.sha256(str(n).encode()).digest()


def table(number: int, *players: str, size: int = 4, running: bool = False) -> Table:
    return Table(number, size, tuple(enumerate(players, start=1)), running)


def where(tables: tuple[Table, ...]) -> dict[str, int]:
    return {p: t.number for t in tables for p in t.players}


def score(before: list[Table], after: tuple[Table, ...]) -> tuple[int, int, int]:
    """(empty seats at tables with players, players waiting, players moved): rule 42."""
    start, end = where(tuple(before)), where(after)
    running = {t.number: set(t.players) for t in before if t.running}
    open_tables = [t for t in after if t.seats]
    empty = sum(t.size - len(t.seats) for t in open_tables)
    waiting = sum(1 for p, n in end.items() if n in running and p not in running[n])
    waiting += sum(1 for t in open_tables if len(t.seats) == 1 and t.number not in running)
    return empty, waiting, sum(1 for p in end if end[p] != start[p])


def best_score(tables: list[Table]) -> tuple[int, int, int]:
    """Brute force: every table for every idle player (running tables' players stay)."""
    size = tables[0].size
    idle = [p for t in tables if not t.running for p in t.players]
    best = None
    for choice in itertools.product([t.number for t in tables], repeat=len(idle)):
        after = {t.number: list(t.players) if t.running else [] for t in tables}
        for player, number in zip(idle, choice, strict=True):
            after[number].append(player)
        if any(len(v) > size for v in after.values()):
            continue
        built = tuple(table(t.number, *after[t.number], size=size) for t in tables)
        found = score(tables, built)
        best = found if best is None or found < best else best
    assert best is not None
    return best


def test_rule_7_initial_tables_and_seats_come_from_the_seed_and_are_recorded() -> None:
    players = [f"p{i}" for i in range(10)]
    seating = initial_seating(players, 4, SEED)
    assert seating.draw.seed == SEED and seating.draw.label == "seating"
    assert [len(t.seats) for t in seating.tables] == [4, 3, 3]  # fewest tables, within one
    assert sorted(p for t in seating.tables for p in t.players) == sorted(players)
    # Re-derived from the record: the drawn order is dealt round the tables.
    order = FairStream(SEED, "seating").shuffled(players)
    assert [order[i] in seating.tables[i % 3].players for i in range(10)] == [True] * 10
    assert initial_seating(players, 4, SEED) == seating
    assert initial_seating(players, 4, OTHER) != seating


@given(st.integers(1, 40), st.integers(2, 9), st.integers(0, 10**6))
@settings(max_examples=60, deadline=None)
def test_rule_7_the_same_seed_gives_the_same_draw(count: int, size: int, n: int) -> None:
    players = [f"p{i}" for i in range(count)]
    seating = initial_seating(players, size, seed(n))
    assert seating == initial_seating(players, size, seed(n))
    seats = [s for t in seating.tables for s, _ in t.seats]
    assert all(1 <= s <= size for s in seats)
    assert sorted(p for t in seating.tables for p in t.players) == sorted(players)
    assert len(seating.tables) == -(-count // size)


def test_rule_7_seats_are_drawn_not_filled_in_order() -> None:
    layouts = {initial_seating(["a", "b"], 9, seed(n)).tables[0].seats for n in range(30)}
    assert len(layouts) > 10


@pytest.mark.parametrize(
    ("players", "size", "bad_seed", "reason"),
    [
        (["a", "a"], 4, SEED, "duplicate_player"),
        (["a", ""], 4, SEED, "invalid_player"),
        (["a"], 1, SEED, "table_size"),
        (["a"], True, SEED, "table_size"),
        (["a"], 4, b"short", "invalid_seed"),
        ([], 4, SEED, "no_players"),
    ],
)
def test_rule_7_bad_input_is_refused_with_a_reason(
    players: list[str], size: int, bad_seed: bytes, reason: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        initial_seating(players, size, bad_seed)
    assert refused.value.reason == reason and status_name(refused.value) == "invalid_argument"


def test_rule_42_a_short_table_closes_into_the_free_seats_of_the_others() -> None:
    tables = [table(1, "a", "b", "c"), table(2, "d", "e", "f"), table(3, "g", "h")]
    plan = rummy_rebalance(tables, SEED)
    assert {(m.player, m.from_table, m.reason) for m in plan.moves} == {
        ("g", 3, "table_closed"),
        ("h", 3, "table_closed"),
    }
    after = apply_moves(tables, plan.moves)
    assert [len(t.seats) for t in after] == [4, 4, 0]
    assert plan.draw.seed == SEED and plan.draw.label == "rummy-rebalance"


def test_rule_42_nothing_moves_when_no_table_can_close() -> None:
    tables = [table(1, "a", "b", "c"), table(2, "d", "e", "f")]
    assert rummy_rebalance(tables, SEED).moves == ()


def test_oq_22_a_running_round_is_never_broken() -> None:
    # Table 2 is the emptier one but plays: table 1 closes into it although that makes
    # its players wait for the round to end (fewer empty seats comes first, rule 42).
    tables = [table(1, "a", "b"), table(2, "c", "d", running=True)]
    plan = rummy_rebalance(tables, SEED)
    assert {m.player for m in plan.moves} == {"a", "b"}
    assert all(m.to_table == 2 and m.from_table == 1 for m in plan.moves)


def test_oq_22_players_of_a_running_round_never_move() -> None:
    tables = [table(1, "a", "b", running=True), table(2, "c", "d", running=True), table(3, "e")]
    plan = rummy_rebalance(tables, SEED)
    assert [m.player for m in plan.moves] == ["e"]


def test_rule_42_a_lone_player_gets_an_opponent_before_moves_are_saved() -> None:
    # 5 seats taken of 2 tables of 4: both stay open; a lone player would wait.
    tables = [table(1, "a", "b", "c", "d"), table(2, "e")]
    plan = rummy_rebalance(tables, SEED)
    assert len(plan.moves) == 1 and plan.moves[0].reason == "lone_player"
    assert plan.moves[0].from_table == 1 and plan.moves[0].to_table == 2


def test_rule_42_a_closed_table_s_player_joins_a_lone_player_first() -> None:
    # 5 players, 2 tables of 4 stay: table 3 closes; its player goes to table 2's lone
    # player (one move), not to table 1 (which would need a second move for table 2).
    tables = [table(1, "a", "b", "c"), table(2, "d"), table(3, "e")]
    plan = rummy_rebalance(tables, SEED)
    assert [(m.player, m.to_table, m.reason) for m in plan.moves] == [("e", 2, "table_closed")]


def test_rule_42_movers_are_drawn_at_random() -> None:
    tables = [table(1, "a", "b", "c", "d"), table(2, "e")]
    movers = {rummy_rebalance(tables, seed(n)).moves[0].player for n in range(40)}
    assert movers == {"a", "b", "c", "d"}


def test_oq_5_final_table_due_when_everyone_left_fits_at_one_table() -> None:
    assert final_table_due([table(1, "a", "b"), table(2, "c", "d")])
    assert not final_table_due([table(1, "a", "b", "c"), table(2, "d", "e")])
    assert not final_table_due([table(1, "a", "b", "c", "d"), table(2)])
    # The balancer then brings them together at the fullest table.
    tables = [table(1, "a"), table(2, "b", "c", "d")]
    assert apply_moves(tables, rummy_rebalance(tables, SEED).moves)[1].players == (
        "b",
        "c",
        "d",
        "a",
    )


def test_rule_42_malformed_tables_are_refused() -> None:
    cases = [
        ([table(1, "a"), table(1, "b")], "table_number"),
        ([table(1, "a"), table(2, "a")], "duplicate_player"),
        ([table(1, "a"), table(2, "b", size=5)], "table_size"),
        ([Table(1, 4, ((5, "a"),))], "seat_number"),
        ([Table(1, 4, ((2, "a"), (1, "b")))], "seat_number"),
        ([], "no_tables"),
    ]
    for tables, reason in cases:
        with pytest.raises(InvalidInput) as refused:
            rummy_rebalance(tables, SEED)
        assert refused.value.reason == reason


tables_strategy = st.integers(2, 4).flatmap(
    lambda size: st.lists(
        st.tuples(st.integers(0, size), st.booleans()), min_size=1, max_size=3
    ).map(lambda spec: (size, spec))
)


@given(tables_strategy, st.integers(0, 10**6))
@settings(max_examples=150, deadline=None)
def test_rule_42_plan_is_optimal_against_brute_force(
    case: tuple[int, list[tuple[int, bool]]], n: int
) -> None:
    size, spec = case
    names = iter(f"p{i}" for i in range(99))
    tables = [
        table(
            number, *(next(names) for _ in range(count)), size=size, running=running and count > 0
        )
        for number, (count, running) in enumerate(spec, start=1)
    ]
    idle = sum(len(t.seats) for t in tables if not t.running)
    if idle > 7:
        return
    plan = rummy_rebalance(tables, seed(n))
    movers = [m.player for m in plan.moves]
    assert len(movers) == len(set(movers))  # nobody moves twice
    after = apply_moves(tables, plan.moves)
    assert score(tables, after) == best_score(tables)
    assert sorted(where(after)) == sorted(where(tuple(tables)))  # each seated once
    assert all(len(t.seats) <= size and len(set(dict(t.seats))) == len(t.seats) for t in after)
    running = {p for t in tables if t.running for p in t.players}
    assert not any(m.player in running for m in plan.moves)
    assert all(isinstance(m, Move) and m.from_table != m.to_table for m in plan.moves)
