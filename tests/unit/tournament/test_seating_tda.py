"""Poker tournament seating (issue 25, Poker TDA): tables break in a fixed order (highest
number first) when the rest can seat everyone, broken tables' players are seated by draw
but never between the button and the small blind, balancing moves the player due the big
blind to the worst position (never the small blind), nobody leaves a table in mid-hand,
the dead button rule, and hand-for-hand busts ranked by chips at the hand's start."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.tournament.core.balancing import (
    due_big_blind,
    hand_for_hand_due,
    next_button_and_blinds,
    rank_simultaneous_busts,
    tda_rebalance,
)
from croupier.tournament.core.errors import InvalidInput, NotAllowed
from croupier.tournament.core.ranking import Place, split_prizes
from croupier.tournament.core.seating import Blinds, Table, apply_moves

SEED = bytes(range(32))


def seed(n: int) -> bytes:
    return hashlib.sha256(str(n).encode()).digest()


def table(
    number: int,
    seats: list[int],
    *,
    size: int = 9,
    blinds: tuple[int, int, int] | None = None,
    running: bool = False,
) -> Table:
    return Table(
        number,
        size,
        tuple((s, f"t{number}s{s}") for s in sorted(seats)),
        running,
        None if blinds is None else Blinds(*blinds),
    )


def counts(tables: tuple[Table, ...]) -> list[int]:
    return [len(t.seats) for t in tables]


def test_tda_breaking_order_the_highest_numbered_table_breaks_first() -> None:
    # 17 players fit at 2 tables of 9: table 3 (not the shortest, table 1) breaks.
    tables = [table(1, [1, 2, 3, 4, 5]), table(2, [1, 2, 3, 4, 5, 6]), table(3, list(range(1, 7)))]
    plan = tda_rebalance(tables, SEED)
    assert {m.from_table for m in plan.moves} == {3}
    assert {m.reason for m in plan.moves} == {"table_broken"}
    assert counts(apply_moves(tables, plan.moves)) == [9, 8, 0]


def test_tda_breaking_two_tables_at_once_moves_each_player_once() -> None:
    tables = [table(1, [1, 2], size=4), table(2, [1], size=4), table(3, [1], size=4)]
    plan = tda_rebalance(tables, SEED)
    assert sorted((m.player, m.to_table) for m in plan.moves) == [("t2s1", 1), ("t3s1", 1)]


def test_tda_no_table_breaks_while_the_rest_cannot_seat_everyone() -> None:
    tables = [table(1, list(range(1, 10))), table(2, list(range(1, 10))), table(3, [1])]
    plan = tda_rebalance(tables, SEED)  # 19 > 18: table 3 stays and is balanced
    assert {m.reason for m in plan.moves} == {"balance"}
    assert sorted(counts(apply_moves(tables, plan.moves))) == [6, 6, 7]


def test_tda_broken_table_players_are_seated_by_random_draw() -> None:
    tables = [table(1, [1, 2, 3]), table(2, [1, 2, 3]), table(3, [1, 2])]
    plans = {tda_rebalance(tables, seed(n)).moves for n in range(20)}
    assert len(plans) > 10
    assert tda_rebalance(tables, seed(1)) == tda_rebalance(tables, seed(1))
    assert tda_rebalance(tables, SEED).draw.label == "tda-rebalance"


def test_tda_broken_table_players_are_never_seated_between_button_and_small_blind() -> None:
    # Last hand: button 2, small blind 4, big blind 7. Next hand the button is on 4 and
    # the small blind on 7: free seats 5 and 6 lie between them, 7 is the small blind's;
    # table 3's two players draw the free seats 1 and 9.
    receiving = table(1, [2, 3, 4, 8], blinds=(2, 4, 7))
    seats = set()
    for n in range(20):
        tables = [receiving, table(2, [1, 2, 3, 4, 5, 6, 7]), table(3, [1, 2])]
        moves = tda_rebalance(tables, seed(n)).moves
        assert {(m.to_table, m.to_seat) for m in moves} == {(1, 1), (1, 9)}
        seats |= {(m.player, m.to_seat) for m in moves}
    assert len(seats) == 4  # each player drew each seat at some seed


def test_tda_balancing_moves_the_player_due_big_blind_into_the_worst_position() -> None:
    # Table 1 (9) played button 1, small blind 2, big blind 3: seat 4 is due the big
    # blind. Table 2 (7) played big blind 7; seat 8 is free: its player posts the big
    # blind there at once.
    tables = [
        table(1, list(range(1, 10)), blinds=(1, 2, 3)),
        table(2, [1, 2, 3, 5, 6, 7, 9], blinds=(5, 6, 7)),
    ]
    plan = tda_rebalance(tables, SEED)
    assert [(m.player, m.from_seat, m.to_table, m.to_seat, m.reason) for m in plan.moves] == [
        ("t1s4", 4, 2, 8, "balance")
    ]
    after = apply_moves(tables, plan.moves)
    assert due_big_blind(after[1]) == 8
    assert due_big_blind(after[0]) == 5  # the next one is due at his old table


def test_tda_balancing_never_seats_the_mover_in_the_small_blind() -> None:
    # Table 2's big blind (seat 7) went out: seat 7 is the dead small blind next hand.
    # The worst free seat after it is 2, not 7.
    tables = [
        table(1, list(range(1, 10)), blinds=(1, 2, 3)),
        table(2, [1, 3, 4, 5, 6, 8, 9], blinds=(5, 6, 7)),
    ]
    plan = tda_rebalance(tables, SEED)
    assert [(m.to_table, m.to_seat) for m in plan.moves] == [(2, 2)]


def test_tda_no_move_from_a_table_in_mid_hand() -> None:
    tables = [
        table(1, list(range(1, 10)), running=True),
        table(2, list(range(1, 9))),
        table(3, [1, 2, 3, 4, 5, 6]),
    ]
    plan = tda_rebalance(tables, SEED)
    assert [m.from_table for m in plan.moves] == [2]  # 9 - 6 but table 1 is in mid-hand
    # The table due to break is in mid-hand: nothing moves until its hand is over.
    tables = [table(1, [1, 2, 3]), table(2, [1, 2, 3, 4, 5], running=True)]
    assert tda_rebalance(tables, SEED).moves == ()


def test_tda_a_table_in_mid_hand_receives_players_for_its_next_hand() -> None:
    tables = [table(1, [1, 2], size=5, running=True), table(2, [1, 2, 3, 4, 5], size=5)]
    plan = tda_rebalance(tables, SEED)
    assert [(m.from_table, m.to_table) for m in plan.moves] == [(2, 1)]


def test_tda_dead_button_the_big_blind_always_moves_forward() -> None:
    seats = [1, 2, 3, 4, 5, 6]
    last = Blinds(1, 2, 3)
    assert next_button_and_blinds(seats, last) == Blinds(2, 3, 4)
    # The big blind went out: the small blind is dead (seat 3), nobody skips the big.
    assert next_button_and_blinds(seats, last, busted=[3]) == Blinds(2, 3, 4)
    # The small blind went out: the button is dead on his seat next hand.
    assert next_button_and_blinds(seats, last, busted=[2]) == Blinds(2, 3, 4)
    # The player due the big blind went out: the next one takes it.
    assert next_button_and_blinds(seats, last, busted=[4]) == Blinds(2, 3, 5)
    # Two hands on from a bust on the big blind, the button is dead on the empty seat 3.
    after = next_button_and_blinds(seats, last, busted=[3])
    assert next_button_and_blinds([1, 2, 4, 5, 6], after) == Blinds(3, 4, 5)


def test_tda_dead_button_heads_up_the_button_posts_the_small_blind() -> None:
    # Three to two: the big blind still moves forward, nobody has it twice running.
    assert next_button_and_blinds([1, 2, 3], Blinds(1, 2, 3), busted=[1]) == Blinds(3, 3, 2)
    assert next_button_and_blinds([1, 2, 3], Blinds(1, 2, 3), busted=[2]) == Blinds(3, 3, 1)
    assert next_button_and_blinds([2, 3], Blinds(3, 3, 2)) == Blinds(2, 2, 3)
    with pytest.raises(NotAllowed) as refused:
        next_button_and_blinds([1, 2], Blinds(1, 1, 2), busted=[1])
    assert refused.value.reason == "not_enough_players"


def test_tda_dead_button_a_newcomer_between_button_and_small_blind_is_not_dealt_in() -> None:
    # Heads-up last hand: button and small blind 1, big blind 5. A player seated on 3
    # since then sits between the next button (1) and small blind (5): he waits for the
    # button to pass, so the table plays heads-up once more, the big blind moving on.
    assert next_button_and_blinds([1, 3, 5], Blinds(1, 1, 5)) == Blinds(5, 5, 1)
    # Seated on 7 instead, he is dealt in at once and posts the big blind.
    assert next_button_and_blinds([1, 5, 7], Blinds(1, 1, 5)) == Blinds(1, 5, 7)


def test_tda_hand_for_hand_on_the_money_and_final_table_bubbles() -> None:
    assert hand_for_hand_due(players_left=19, paid_places=18)
    assert not hand_for_hand_due(players_left=20, paid_places=18)
    assert not hand_for_hand_due(players_left=18, paid_places=18)
    assert hand_for_hand_due(players_left=10, paid_places=3, table_size=9)
    assert not hand_for_hand_due(players_left=10, paid_places=3)
    assert not hand_for_hand_due(players_left=0, paid_places=5)  # nobody left: no bubble
    with pytest.raises(InvalidInput) as refused:
        hand_for_hand_due(-1, 3)
    assert refused.value.reason == "invalid_count"


def test_tda_hand_for_hand_busts_share_places_by_chips_at_the_start_of_the_hand() -> None:
    # 5 left, 3 paid (30, 20, 10): a, b, c go out in the same hand-for-hand hand.
    places = rank_simultaneous_busts({"a": 300, "b": 500, "c": 300}, best_place=3)
    assert places == (Place(3, ("b",)), Place(4, ("a", "c")))
    won = split_prizes([Place(1, ("x",)), Place(2, ("y",)), *places], [30, 20, 11])
    assert (won["b"], won["a"], won["c"]) == (11, 0, 0)
    places = rank_simultaneous_busts({"a": 300, "b": 300}, best_place=2)
    won = split_prizes([Place(1, ("x",)), *places], [30, 20, 11])
    assert (won["a"], won["b"]) == (16, 15)  # places 2 and 3 pooled, the odd unit to a
    for bad in ({"a": 0}, {"a": True}, {"": 5}):
        with pytest.raises(InvalidInput):
            rank_simultaneous_busts(bad, 1)


def test_tda_malformed_blinds_are_refused() -> None:
    with pytest.raises(InvalidInput) as refused:
        tda_rebalance([table(1, [1, 2, 3], blinds=(2, 1, 3))], SEED)
    assert refused.value.reason == "blinds"


@st.composite
def tables_between_hands(draw: st.DrawFn) -> list[Table]:
    size = draw(st.integers(2, 10))
    tables = []
    for number in range(1, draw(st.integers(1, 6)) + 1):
        seats = sorted(draw(st.sets(st.integers(1, size), max_size=size)))
        blinds = None
        if len(seats) >= 2 and draw(st.booleans()):
            bb = draw(st.sampled_from(seats))
            sb = draw(st.sampled_from([s for s in range(1, size + 1) if s != bb]))
            button = draw(
                st.sampled_from(
                    [
                        b
                        for b in range(1, size + 1)
                        if b == sb or not (sb < b < bb if sb < bb else b > sb or b < bb)
                    ]
                )
            )
            blinds = (button, sb, bb)
        tables.append(table(number, seats, size=size, blinds=blinds))
    return tables


@given(tables_between_hands(), st.integers(0, 10**6))
@settings(max_examples=300, deadline=None)
def test_tda_property_between_hands_tables_balance_within_one_and_everyone_sits_once(
    tables: list[Table], n: int
) -> None:
    plan = tda_rebalance(tables, seed(n))
    movers = [m.player for m in plan.moves]
    assert len(movers) == len(set(movers))  # nobody moves twice
    after = apply_moves(tables, plan.moves)
    sizes = [len(t.seats) for t in after if t.seats]
    assert not sizes or max(sizes) - min(sizes) <= 1
    players = [p for t in after for p in t.players]
    assert sorted(players) == sorted(p for t in tables for p in t.players)
    assert all(1 <= s <= t.size for t in after for s, _ in t.seats)
    left, size = len(players), tables[0].size
    assert len(sizes) <= 1 or left > (len(sizes) - 1) * size  # no break left to do
    open_before = [t.number for t in tables if t.seats]
    assert [t.number for t in after if t.seats] == open_before[: len(sizes)]  # fixed order


@given(tables_between_hands(), st.sets(st.integers(1, 6)), st.integers(0, 10**6))
@settings(max_examples=100, deadline=None)
def test_tda_property_nobody_leaves_a_table_in_mid_hand(
    tables: list[Table], running: set[int], n: int
) -> None:
    tables = [Table(t.number, t.size, t.seats, t.number in running, t.blinds) for t in tables]
    plan = tda_rebalance(tables, seed(n))
    assert not any(m.from_table in running for m in plan.moves)
    players = [p for t in apply_moves(tables, plan.moves) for p in t.players]
    assert len(players) == len(set(players)) == sum(len(t.seats) for t in tables)
