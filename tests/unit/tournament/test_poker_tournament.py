"""A poker tournament hand by hand through the pure core (issue 25, rules 52-54, Poker
TDA 2022): what the director decides after each hand. Each test names the rule it covers;
the balancer's own cases (seats, movers, broken tables) are in test_seating_tda.py."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.game.fairness import commitment
from croupier.tournament.core.balancing import due_big_blind
from croupier.tournament.core.errors import InvalidInput, NotAllowed, NotFound
from croupier.tournament.core.payouts import prizes_for
from croupier.tournament.core.poker_decisions import (
    BreakStarted,
    Busted,
    Deal,
    Decision,
    Finished,
    HandForHand,
    LevelStarted,
    Moves,
    Seated,
    SpinDrawn,
    TableClosed,
)
from croupier.tournament.core.poker_state import count_sizes
from croupier.tournament.core.poker_tournament import (
    PokerTournament,
    hand_finished,
    players_left,
    standings,
    start,
    tick,
)
from croupier.tournament.core.ranking import Place
from croupier.tournament.core.spin import PUBLISHED_TABLE, draw_multiplier, prizes, verify_draw
from tests.unit.tournament.poker_play import (
    PAYOUTS,
    SEED,
    STACK,
    bust,
    config,
    deals,
    names,
    of_type,
    report,
    run_to_end,
    structure_with_break,
)


def bust_down_to(state: PokerTournament, left: int, now: int = 0) -> PokerTournament:
    """Players out one hand at a time (the shortest stack of a running table) until
    `left` remain or hand-for-hand starts; tables finished are dealt again as decided."""
    while players_left(state) > left and not state.hand_for_hand:
        table = min(state.in_hand)
        loser = min(state.in_hand[table], key=lambda p: (state.chips[p], p))
        state = bust(state, table, now, loser).state
    return state


def at_bubble(left: int = 5) -> PokerTournament:
    """9 players at tables of 3 paying 4, played down to `left` and on to the first
    hand-for-hand round dealt at every table together."""
    state = bust_down_to(start(config(), names(9), SEED, 0).state, left)
    while len(state.in_hand) < sum(1 for t in state.tables if t.seats):
        state = report(state, min(state.in_hand), 0).state
    return state


def finish_quietly(
    state: PokerTournament, table: int, now: int = 0
) -> tuple[PokerTournament, list[Decision]]:
    step = report(state, table, now)
    return step.state, list(step.decisions)


# Rule 52: Sit & Go -----------------------------------------------------------------------


def test_rule_52_a_sit_and_go_starts_only_when_full() -> None:
    terms = config("sit_and_go", players=6, table_size=6)
    with pytest.raises(NotAllowed) as refused:
        start(terms, names(5), SEED, 0)
    assert refused.value.reason == "not_full"
    step = start(terms, names(6), SEED, 0)
    assert [type(d) for d in step.decisions] == [Seated, LevelStarted, Deal]
    (deal,) = deals(step)
    assert sorted(deal.players) == names(6)
    assert deal.level == terms.structure.levels[0]


def test_rule_52_a_sit_and_go_runs_to_the_end_and_pays_its_published_table() -> None:
    terms = config("sit_and_go", players=6, table_size=6)
    first = start(terms, names(6), SEED, 0)
    steps = run_to_end(first.state, first, random.Random(52))
    state = steps[-1].state
    assert sum(state.chips.values()) == 6 * STACK
    (finished,) = of_type(steps[-1].decisions, Finished)
    assert [p.place for p in finished.places] == [1, 2, 3, 4, 5, 6]
    expected = prizes_for(PAYOUTS, 6, 600)
    paid = [finished.prizes[place.players[0]] for place in finished.places]
    assert paid[: len(expected)] == list(expected) and sum(paid) == 600
    with pytest.raises(NotAllowed) as refused:
        tick(state, 10**6)
    assert refused.value.reason == "finished"


def test_rule_52_players_out_in_one_hand_are_ranked_by_chips_at_its_start() -> None:
    state = start(config("sit_and_go", players=6, table_size=6), names(6), SEED, 0).state
    a, b, c, d, *_ = state.in_hand[1]
    # a loses 600 to d first: a starts the next hand with 400, b with 1000, c with 1000.
    state = report(state, 1, 0, {a: 600}, winner=d).state
    step = bust(state, 1, 0, a, b, c)
    (busted,) = of_type(step.decisions, Busted)
    assert busted.places == (Place(4, tuple(sorted((b, c), key=names(6).index))), Place(6, (a,)))


# Rule 53: Spin ---------------------------------------------------------------------------


def test_rule_53_a_spin_shows_its_drawn_multiplier_and_prizes_before_the_first_hand() -> None:
    terms = config("spin", players=3, table_size=3, structure=config().structure)
    step = start(terms, names(3), SEED, 0)
    kinds = [type(d) for d in step.decisions]
    assert kinds.index(SpinDrawn) < kinds.index(Deal)
    (drawn,) = of_type(step.decisions, SpinDrawn)
    assert drawn.multiplier == draw_multiplier(PUBLISHED_TABLE, SEED)
    assert drawn.prizes == prizes(drawn.multiplier, terms.buy_in)
    # Revealed after the tournament, the seed verifies the draw against its commitment.
    assert verify_draw(PUBLISHED_TABLE, SEED, commitment(SEED), drawn.multiplier.multiplier)
    final = run_to_end(step.state, step, random.Random(53))[-1]
    (finished,) = of_type(final.decisions, Finished)
    assert sum(finished.prizes.values()) == terms.buy_in * drawn.multiplier.multiplier


# TDA: balancing, breaking, dead button -------------------------------------------------------


def test_tda_balancing_moves_the_player_due_big_blind_at_the_fuller_table_between_hands() -> None:
    state = start(config(players=18, table_size=9), names(18), SEED, 0).state
    first, second = state.in_hand[1], state.in_hand[2]
    # Table 1 loses two players: 7 against 9. Table 2 is in mid-hand: nobody moves yet.
    step = bust(state, 1, 0, first[0], first[1])
    assert not of_type(step.decisions, Moves)
    state = step.state
    due = due_big_blind(state.tables[1])
    assert due is not None
    mover = dict(state.tables[1].seats)[due]
    step = report(state, 2, 0, {second[0]: 1})
    (moves,) = of_type(step.decisions, Moves)
    (move,) = moves.plan.moves
    assert (move.player, move.from_table, move.to_table, move.reason) == (mover, 2, 1, "balance")
    # The worst position at table 1: the first free seat clockwise after the big blind of
    # its hand in play, where the big blind comes soonest (never the small blind: the
    # next small blind is that big blind's seat, which is taken).
    blinds = state.tables[0].blinds
    assert blinds is not None
    taken = dict(state.tables[0].seats)
    clockwise = [(blinds.big_blind + k - 1) % 9 + 1 for k in range(1, 10)]
    assert move.to_seat == next(seat for seat in clockwise if seat not in taken)
    # Table 1's hand is in play: he waits for it to end, as nobody leaves table 2 mid-hand.
    assert mover not in state.in_hand[1]
    assert [len(t.seats) for t in step.state.tables] == [8, 8]


def test_tda_breaking_order_the_highest_numbered_table_breaks_when_the_rest_seat_everyone() -> None:
    state = start(config(players=9, table_size=3), names(9), SEED, 0).state
    step = bust(state, 1, 0, state.in_hand[1][0])  # 8 left at 3 tables of 3: no break
    assert not of_type(step.decisions, TableClosed)
    state = step.state
    step = bust(state, 2, 0, state.in_hand[2][0])  # 7 left: still 3 tables (3 + 3 + 1)
    state = step.state
    step = bust(state, 1, 0, state.in_hand[1][0])  # 6 left: two tables seat them
    closed = of_type(step.decisions, TableClosed)
    # Table 3 is in mid-hand: it breaks once its hand is over, not table 1 (the shortest).
    assert closed == []
    step = report(step.state, 3, 0)
    assert of_type(step.decisions, TableClosed) == [TableClosed(3)]
    (moves,) = of_type(step.decisions, Moves)
    assert {m.from_table for m in moves.plan.moves} == {3}
    assert {m.reason for m in moves.plan.moves} == {"table_broken"}


def test_tda_dead_button_when_the_big_blind_busts_the_big_blind_still_moves_forward() -> None:
    state = start(config("sit_and_go", players=6, table_size=6), names(6), SEED, 0).state
    blinds = state.tables[0].blinds
    assert blinds is not None
    seats = dict(state.tables[0].seats)
    step = bust(state, 1, 0, seats[blinds.big_blind])
    (deal,) = deals(step)
    order = sorted(seats)
    after_big_blind = order[(order.index(blinds.big_blind) + 1) % len(order)]
    # The last big blind's seat is the dead small blind; the button moves to the last small
    # blind; the big blind moves forward one player.
    assert deal.blinds.button == blinds.small_blind
    assert deal.blinds.small_blind == blinds.big_blind
    assert deal.blinds.small_blind not in dict(step.state.tables[0].seats)
    assert deal.blinds.big_blind == after_big_blind
    assert len(deal.players) == 5


# TDA: hand-for-hand ---------------------------------------------------------------------------


def test_tda_hand_for_hand_on_the_money_bubble_every_table_plays_one_hand_at_a_time() -> None:
    state = bust_down_to(start(config(), names(9), SEED, 0).state, 5)
    assert players_left(state) == 5 and state.hand_for_hand  # 4 places paid
    for _ in range(3):  # three rounds: the first ends the hands in play when it began
        running = sorted(state.in_hand)
        # Tables finish in turn; none is dealt again until the last has finished, then
        # every table is.
        for table in running[:-1]:
            state, decisions = finish_quietly(state, table)
            assert not of_type(decisions, Deal)
        state, decisions = finish_quietly(state, running[-1])
        seated = [t.number for t in state.tables if t.seats]
        assert len(seated) == 2
        assert sorted(d.table for d in of_type(decisions, Deal)) == seated


def test_tda_hand_for_hand_busts_at_two_tables_share_places_by_chips_at_the_hand_start() -> None:
    state = at_bubble()
    assert state.hand_for_hand
    one, two = sorted(state.in_hand)
    short = min(state.in_hand[one], key=lambda p: state.chips[p])
    tall = min(state.in_hand[two], key=lambda p: state.chips[p])
    chips = {short: state.chips[short], tall: state.chips[tall]}
    step = bust(state, one, 0, short)
    assert not of_type(step.decisions, Busted)  # placed when the round is over
    assert standings(step.state)[-5].players == (short,)  # meanwhile below those in
    step = bust(step.state, two, 0, tall)
    (busted,) = of_type(step.decisions, Busted)
    if chips[short] == chips[tall]:
        assert busted.places == (Place(4, tuple(p for p in names(9) if p in chips)),)
    else:
        better, worse = sorted(chips, key=chips.__getitem__, reverse=True)
        assert busted.places == (Place(4, (better,)), Place(5, (worse,)))


def test_tda_hand_for_hand_continues_on_the_final_table_bubble_and_stops_after_it() -> None:
    state = at_bubble()
    one, two = sorted(state.in_hand)
    state = bust(state, one, 0, state.in_hand[one][0]).state
    step = report(state, two, 0)
    # 4 left, tables of 3: one more out and everyone fits at the final table.
    assert players_left(step.state) == 4 and step.state.hand_for_hand
    assert not of_type(step.decisions, HandForHand)
    state = step.state
    tables = sorted(state.in_hand)
    state = bust(state, tables[0], 0, state.in_hand[tables[0]][0]).state
    decisions: list[Decision] = []
    for table in tables[1:]:
        state, decisions = finish_quietly(state, table)
    assert HandForHand(False) in decisions
    assert of_type(decisions, TableClosed) and len(of_type(decisions, Deal)) == 1


def test_tda_no_hand_for_hand_at_a_single_table_bubble() -> None:
    # A Sit & Go of 6 paying 4 reaches its bubble at one table: nothing to synchronise.
    state = start(config("sit_and_go", players=6, table_size=6), names(6), SEED, 0).state
    state = bust_down_to(state, 5)
    assert players_left(state) == 5 and not state.hand_for_hand


# Levels and breaks -----------------------------------------------------------------------------


def test_rule_54_break_timing_tables_finish_their_hand_then_wait_for_the_break_to_end() -> None:
    state = start(config(structure=structure_with_break()), names(9), SEED, 0).state
    step = report(state, 1, 599)
    assert deals(step) and not of_type(step.decisions, LevelStarted)
    step = report(step.state, 2, 600)  # level 2 from 600 s
    assert of_type(step.decisions, LevelStarted)[0].level_index == 1
    assert deals(step)[0].level == structure_with_break().levels[1]
    step = report(step.state, 3, 1200)  # the break from 1200 s: no deal
    assert of_type(step.decisions, BreakStarted) == [BreakStarted(300)]
    assert not deals(step)
    step = tick(step.state, 1499)
    assert step.decisions == ()
    step = tick(step.state, 1500)  # level 3 after the break: table 3 is dealt again
    assert of_type(step.decisions, LevelStarted)[0].level_index == 2
    assert [d.table for d in deals(step)] == [3]


# Refusals ------------------------------------------------------------------------------------


def test_a_hand_report_that_disagrees_with_the_state_is_refused_naming_why() -> None:
    state = start(config(), names(9), SEED, 0).state
    players = state.in_hand[1]
    before = {p: state.chips[p] for p in players}
    cases: list[tuple[object, dict[str, int], dict[str, int], type[Exception], str]] = [
        (7, before, before, NotFound, "unknown_table"),
        (1, {**before, "stranger": 5}, before, NotFound, "unknown_player"),
        (1, {**before, players[0]: 999}, before, InvalidInput, "stacks_mismatch"),
        (1, before, {**before, players[0]: 1001}, InvalidInput, "chips_not_conserved"),
        (1, before, {**before, players[0]: -1}, InvalidInput, "invalid_stacks"),
    ]
    for table, stacks_before, stacks_after, kind, reason in cases:
        with pytest.raises(kind) as refused:
            hand_finished(state, table, stacks_before, stacks_after, 0)  # type: ignore[arg-type]
        assert refused.value.reason == reason  # type: ignore[attr-defined]
    idle = replace(state, in_hand={})
    with pytest.raises(NotAllowed) as refused_idle:
        hand_finished(idle, 1, before, before, 0)
    assert refused_idle.value.reason == "no_hand"


def test_a_scheduled_tournament_does_not_start_early_or_short() -> None:
    terms = config(starts_at=3_600, min_players=4, registration_opens_at=0)
    with pytest.raises(NotAllowed) as early:
        start(terms, names(9), SEED, 3_599)
    assert early.value.reason == "too_early"
    with pytest.raises(NotAllowed) as short:
        start(terms, names(3), SEED, 3_600)
    assert short.value.reason == "not_enough_players"


# Properties ----------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    players=st.integers(2, 40),
    table_size=st.integers(2, 10),
    seed=st.integers(0, 2**32),
)
def test_property_a_tournament_ends_with_chips_conserved_and_everyone_placed_once(
    players: int, table_size: int, seed: int
) -> None:
    terms = config(players=players, table_size=table_size)
    first = start(terms, names(players), SEED, 0)
    steps = run_to_end(first.state, first, random.Random(seed))
    for step in steps:
        state = step.state
        assert sum(state.chips.values()) == players * STACK
        assert state.seated == tuple(t.number for t in state.tables if t.seats)
        assert state.table_sizes == count_sizes(state.tables, table_size)
        seated = [p for table in state.tables for p in table.players]
        assert len(seated) == len(set(seated))
        assert set(seated) == {p for p, c in state.chips.items() if c > 0}
        for table, dealt in state.in_hand.items():
            assert set(dealt) <= set(state.tables[table - 1].players)
    final = steps[-1].state
    ranked = standings(final)
    assert sorted(p for place in ranked for p in place.players) == sorted(names(players))
    assert ranked[0] == Place(1, ranked[0].players) and len(ranked[0].players) == 1
    (finished,) = of_type(steps[-1].decisions, Finished)
    assert sum(finished.prizes.values()) == terms.buy_in * players
