"""Seed 001 rules and vectors that no other backgammon test names (issue 6).

Each test names one rule (1-45) or test vector (1-25) of the spec's "Implementation
reading" and checks it through the public API: the pure engine (`croupier.backgammon.core.game`,
`croupier.backgammon.core.moves`), the table adapter (`croupier.backgammon.engine.ENGINE`)
or, for clocks, the table host with a fake clock. Rules already named elsewhere are not
repeated here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from croupier.backgammon.core.board import STARTING_BOARD, Board, Side, borne_off, pip_count
from croupier.backgammon.core.game import (
    Mode,
    Options,
    Phase,
    State,
    apply,
    deltas,
    legal_actions,
    new_table,
    payout,
    public_view,
    start_game,
)
from croupier.backgammon.core.moves import legal_plays, match_play
from croupier.backgammon.core.notation import IllegalPlay
from croupier.backgammon.core.table import BackgammonTable
from croupier.backgammon.engine import ENGINE
from croupier.game import Act, ClockSettings, HandResult, RuleBroken, SeatPlayer, StartHand
from croupier.game.commission import backgammon_commission
from croupier.game.money import CURRENCIES
from tests.support.backgammon import (
    PLAYERS,
    USD_SINGLE,
    board,
    full_table,
    play_first_move,
    public_of,
    side,
    started_host,
)
from tests.support.table import FakeClock

# ---- builders ----------------------------------------------------------------------


def running(
    boards: tuple[Side, Side],
    turn: int = 0,
    dice: tuple[int, int] | None = None,
    options: Options | None = None,
    **fields: Any,
) -> State:
    """A game in progress between "a" (player 0) and "b" (player 1); boards[i] is player
    i's side in their own numbering. With dice: `turn` is moving, else about to roll."""
    st = new_table(options or Options(stake=100), ("a", "b"))
    return replace(
        st,
        phase=Phase.MOVING if dice else Phase.TURN,
        boards=boards,
        turn=turn,
        dice=dice,
        game_number=1,
        **fields,
    )


def a_bears_off_last(loser: Side, options: Options | None = None, **fields: Any) -> State:
    """Player "a" has one checker left on the 1-point and bears it off with 2-1."""
    st = running((side({1: 1}), loser), turn=0, dice=(2, 1), options=options, **fields)
    st, _ = apply(st, "a", {"action": "move", "play": "1/off"})
    return st


def doubled(options: Options, cube: int = 1, owner: int | None = None) -> State:
    """ "a" (player 0) has just offered a double; "b" answers."""
    st = running(STARTING_BOARD, turn=0, options=options, cube=cube, cube_owner=owner)
    st, _ = apply(st, "a", {"action": "double"})
    return st


def seated(options: dict[str, Any]) -> BackgammonTable:
    state = ENGINE.open(options)
    for seat, player in enumerate(PLAYERS):
        state, _ = ENGINE.apply(state, SeatPlayer(player, seat))
    return state


def lost_on_time(options: dict[str, Any]) -> tuple[str, HandResult]:
    """The adapter's result of a game whose first mover let the clock run out."""
    state, _ = ENGINE.apply(seated(options), StartHand(bytes(32)))
    (player,) = [t.player for t in ENGINE.turns(state)]
    state, _ = ENGINE.apply(state, Act(player, ENGINE.timeout_action(state, player), by_clock=True))
    result = ENGINE.result(state)
    assert result is not None
    return player, result


def entries(b: Board, d1: int, d2: int) -> set[int]:
    """The points the bar checkers enter on, over every legal play of the roll."""
    return {to for p in legal_plays(b, d1, d2) for frm, to in p.moves if frm == 25}


# ---- series and single-game money (rules 4, 6, 16, 20, 21) -------------------------


def test_rule_1_two_modes_series_to_points_and_single_money_game() -> None:
    """Rule 1: a table is a series to an agreed number of points or a single game for
    an agreed stake; no other mode opens. A single-game table settles each game; a
    series table moves no money until a player reaches the points."""
    single = ENGINE.open({"mode": "single", "stake": 500})
    series = ENGINE.open({"mode": "series", "stake": 500, "points": 5})
    assert (single.options.mode, single.options.stake) == ("single", 500)
    assert (series.options.mode, series.options.points) == ("match", 5)
    for other in ("chouette", "tournament", "doubles"):
        with pytest.raises(RuleBroken):
            ENGINE.open({"mode": other, "stake": 500})
    one = a_bears_off_last(side({6: 14}), options=Options(stake=500))
    assert one.complete and payout(one) == 500
    first = a_bears_off_last(side({6: 14}), options=Options(mode=Mode.MATCH, stake=500, points=5))
    assert not first.complete and payout(first) == 0 and first.score == (1, 0)


def test_rule_3_series_points_are_cube_times_the_win_multiplier() -> None:
    """Rule 3: in a series a game scores cube x 1 (single), x 2 (gammon), x 3
    (backgammon): at cube 4 that is 4, 8 and 12 points."""
    opts = Options(mode=Mode.MATCH, stake=100, points=25)
    for loser, points in ((side({6: 14}), 4), (side({6: 15}), 8), (side({"bar": 1, 6: 14}), 12)):
        st = a_bears_off_last(loser, options=opts, cube=4, cube_owner=0, score=(3, 2))
        assert st.last_result is not None and st.last_result.points == points
        assert st.score == (3 + points, 2) and not st.complete


def test_rule_4_the_series_ends_when_a_total_reaches_or_passes_the_target() -> None:
    """Rule 4: 5-0 in a series to 7, a single win makes 6-0 (not over: the next game
    starts); from 6-0 a gammon passes the target (8) and ends the series at once."""
    opts = Options(mode=Mode.MATCH, stake=1000, points=7)
    st = a_bears_off_last(side({6: 13, 24: 1}), options=opts, score=(5, 0))
    assert st.score == (6, 0) and st.match_winner is None and not st.complete
    st, _ = start_game(st, opening=(3, 1))  # the series goes on
    assert st.game_number == 2 and st.phase == "moving"

    st = a_bears_off_last(side({6: 15}), options=opts, score=(6, 0))
    assert st.score == (8, 0) and st.match_winner == 0 and st.complete
    with pytest.raises(RuleBroken):
        start_game(st, opening=(3, 1))  # no game after the series is over


def test_rule_6_an_unturned_cube_counts_one() -> None:
    """Rule 6: a single game that ends with the cube never turned is settled at cube 1
    (stake x multiplier): a gammon at a $3 stake costs $6."""
    st = new_table(Options(stake=300), ("a", "b"))
    st, _ = start_game(st, opening=(3, 1))
    assert (st.cube, st.cube_owner, public_view(st)["cube"]) == (1, None, 1)
    st = a_bears_off_last(side({6: 15}), options=Options(stake=300))
    assert st.last_result is not None
    assert (st.last_result.cube, st.last_result.result, st.last_result.points) == (1, "gammon", 2)
    assert payout(st) == 600


def test_rule_16_refused_double_pays_the_pre_offer_value_without_gammon() -> None:
    """Rule 16: the refuser pays stake x the cube before the offer, never a gammon,
    even from a position where he is about to be gammoned (cube 4 -> offer 8 refused:
    $5 x 4 = $20). OQ 13: the table maximum also caps a refusal."""
    gammonish = (side({1: 2}), side({12: 15}))  # a is nearly off, b has not reached home
    st = running(gammonish, turn=0, options=Options(stake=500), cube=4, cube_owner=0)
    st, _ = apply(st, "a", {"action": "double"})
    st, events = apply(st, "b", {"action": "drop"})
    assert st.last_result is not None
    r = st.last_result
    assert (r.winner, r.result, r.cube, r.points, r.how) == (0, "single", 4, 4, "drop")
    assert payout(st) == 2000
    assert deltas(st) == {"a": 2000 - 2 * 130, "b": -2000}
    assert events[-1].data["result"] == "single"

    capped = running(
        gammonish, turn=0, options=Options(stake=500, max_win=1500), cube=4, cube_owner=0
    )
    capped, _ = apply(capped, "a", {"action": "double"})
    capped, _ = apply(capped, "b", {"action": "drop"})
    assert payout(capped) == 1500


def test_rule_20_a_beaver_doubles_again_and_the_beaverer_owns_the_cube() -> None:
    """Rule 20: offered a double (1 -> 2), b beavers instead of taking or dropping: the
    cube goes to 4 (4 x its value before the offer) and b owns it once a takes."""
    opts = Options(stake=200, beaver=True)
    st = doubled(opts)
    assert sorted(legal_actions(st, "b")["actions"]) == ["beaver", "drop", "take"]
    st, events = apply(st, "b", {"action": "beaver"})
    assert events[0].type == "double_beavered" and events[0].data["to"] == 4
    st, _ = apply(st, "a", {"action": "take"})
    assert (st.cube, st.cube_owner) == (4, 1)
    assert (st.phase, st.turn) == ("turn", 0)  # a, the doubler, rolls on
    assert not st.can_double(0) and "double" not in legal_actions(st, "a")["actions"]
    # A redouble by the cube owner may be beavered too (OQ 12): 4 -> 8 -> 16.
    st = running(STARTING_BOARD, turn=1, options=opts, cube=4, cube_owner=1)
    st, _ = apply(st, "b", {"action": "double"})
    st, _ = apply(st, "a", {"action": "beaver"})
    st, _ = apply(st, "b", {"action": "take"})
    assert (st.cube, st.cube_owner) == (16, 0)


def test_rule_21_after_a_beaver_the_doubler_takes_or_drops_at_the_doubled_value() -> None:
    """Rule 21 (OQ 12): after b's beaver, a may only take or drop (no raccoon); dropping
    pays stake x the cube after the original double ($2 x 2 = $4, b wins a single game);
    taking plays on at 4 with b owning the cube (a single win is then worth $8)."""
    opts = Options(stake=200, beaver=True)
    st, _ = apply(doubled(opts), "b", {"action": "beaver"})
    assert legal_actions(st, "a")["actions"] == ["take", "drop"]
    for refused in ({"action": "double"}, {"action": "beaver"}, {"action": "roll"}):
        with pytest.raises(RuleBroken):
            apply(st, "a", refused)

    dropped, _ = apply(st, "a", {"action": "drop"})
    assert dropped.last_result is not None
    r = dropped.last_result
    assert (r.winner, r.result, r.cube, r.points, r.how) == (1, "single", 2, 2, "drop")
    assert payout(dropped) == 400

    taken, _ = apply(st, "a", {"action": "take"})
    assert (taken.cube, taken.cube_owner, taken.phase) == (4, 1, "turn")
    won = a_bears_off_last(side({6: 14}), options=opts, cube=taken.cube, cube_owner=1)
    assert payout(won) == 800


# ---- bearing off and results (rules 22, 36-38) --------------------------------------


def test_rule_22_the_first_to_bear_off_all_fifteen_wins() -> None:
    """Rule 22: b has 14 checkers off, a has 2 left; a bears off one (not over), b bears
    off his last one and wins, a single game (a has borne off 13)."""
    st = running((side({2: 1, 6: 1}), side({1: 1})), turn=0, dice=(2, 1))
    st, _ = apply(st, "a", {"action": "move", "play": "2/off 6/5"})
    assert (st.phase, borne_off(st.boards[0])) == ("turn", 14)  # 14 off is not a win
    st, _ = apply(st, "b", {"action": "roll", "dice": [4, 2]})
    st, events = apply(st, "b", {"action": "move", "play": "1/off"})
    assert st.game_over and st.last_result is not None
    assert (st.last_result.winner, st.last_result.result, st.last_result.how) == (
        1,
        "single",
        "bear_off",
    )
    assert events[-1].type == "game_ended" and events[-1].data["winner"] == "b"


def test_rule_36_the_loser_has_borne_off_a_checker_single_win() -> None:
    """Rule 36: one checker off is enough for a single game, even with others on the
    bar and in the winner's home board."""
    st = a_bears_off_last(side({"bar": 1, 24: 2, 20: 3, 13: 8}), options=Options(stake=100))
    assert st.last_result is not None
    assert (st.last_result.result, st.last_result.points, payout(st)) == ("single", 1, 100)


def test_rule_37_nothing_off_nothing_in_the_winners_home_or_on_the_bar_gammon() -> None:
    """Rule 37: no checker off, none on the bar and none on the loser's 19-24 points (the
    winner's home board); one on the loser's 18-point (the winner's bar point) still
    only a gammon."""
    st = a_bears_off_last(side({18: 1, 12: 4, 6: 10}), options=Options(stake=100), cube=2)
    assert st.last_result is not None
    assert (st.last_result.result, st.last_result.points, payout(st)) == ("gammon", 4, 400)


@pytest.mark.parametrize("where", ["bar", 19, 24])
def test_rule_38_nothing_off_and_a_checker_in_the_winners_home_or_on_the_bar_backgammon(
    where: int | str,
) -> None:
    """Rule 38 (OQ 9 for the bar): the loser's 19- and 24-points are the winner's 6- and
    1-points; a checker there or on the bar makes it a backgammon (x3)."""
    st = a_bears_off_last(side({where: 1, 6: 14}), options=Options(stake=100))
    assert st.last_result is not None
    assert (st.last_result.result, st.last_result.points, payout(st)) == ("backgammon", 3, 300)


# ---- entering and moving (rules 25, 27, 28) ------------------------------------------


def test_rule_23_landing_on_a_blot_hits_it_onto_the_bar() -> None:
    """Rule 23: b's blot on his 5-point is a's 20-point; a's 24/20* puts it on b's bar.
    A point held by two or more of b's checkers (his 6-point, a's 19) cannot be taken."""
    boards = (side({24: 2, 13: 5, 8: 3, 6: 5}), side({5: 1, 13: 5, 8: 3, 6: 5, 24: 1}))
    st = running(boards, turn=0, dice=(4, 2))
    hit, events = apply(st, "a", {"action": "move", "play": "24/20* 13/11"})
    assert hit.boards[1][24] == 1 and hit.boards[1][4] == 0  # b: on the bar, 5-point empty
    assert hit.boards[0][19] == 1 and events[0].data["play"] == "24/20* 13/11"
    assert legal_actions(hit, "b")["actions"] == ["roll", "double", "resign"]
    held = running(boards, turn=0, dice=(5, 2))
    with pytest.raises(RuleBroken):
        apply(held, "a", {"action": "move", "play": "24/19 24/22"})


def test_rule_25_a_die_enters_on_the_opponents_home_point_unless_it_is_held() -> None:
    """Rule 25: a d enters on the mover's 25-d point (the opponent's d-point) unless two
    or more opposing checkers hold it; entering on a blot hits it."""
    b = board(
        {"bar": 1, 13: 5, 8: 3, 6: 6},
        {1: 2, 2: 1, 13: 5, 8: 3, 6: 4},  # holds his 1- and 6-points, a blot on his 2
    )
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            expected = {25 - d for d in (d1, d2) if d not in (1, 6)}
            assert entries(b, d1, d2) == expected, (d1, d2)
    assert legal_plays(b, 1, 6) == [] and legal_plays(b, 1, 1) == []  # held: no entry
    for p in legal_plays(b, 2, 1):
        assert p.notation.startswith("bar/23*")
        assert p.board[0][24] == 1  # the opponent's blot is on his bar


def test_rule_27_as_many_bar_checkers_enter_as_possible_the_rest_is_forfeited() -> None:
    """Rule 27: three on the bar with 5-3 and both points open: two enter, the third
    stays, and no other checker moves; two on the bar, 4-4 with the 21-point held, 6-6
    with the 19-point held: no entry, nothing moves."""
    three = board({"bar": 3, 13: 5, 8: 3, 6: 4}, {13: 5, 8: 3, 6: 5})
    (play,) = legal_plays(three, 5, 3)
    assert play.board[1][24] == 1
    assert sorted(to for frm, to in play.moves) == [20, 22]
    assert all(frm == 25 for frm, _ in play.moves)
    held = board({"bar": 2, 13: 5, 8: 3, 6: 5}, {4: 2, 6: 3, 13: 5, 8: 3, 1: 2})
    for d in (4, 6):
        assert legal_plays(held, d, d) == []
        assert match_play(held, d, d, "") == held
    # Four of a kind enters both checkers, then the other two must be played (rule 28).
    for p in legal_plays(held, 3, 3):
        assert p.board[1][24] == 0 and len(p.moves) == 4


def test_rule_28_once_the_bar_is_empty_the_rest_of_the_roll_must_be_played() -> None:
    """Rule 28: one checker on the bar, 5-3, both entry points open: every legal play
    enters and then uses the other die (8 pips); entering alone is refused."""
    b = board({"bar": 1, 13: 5, 8: 3, 6: 5, 24: 1}, {13: 5, 8: 3, 6: 5, 24: 2})
    before = pip_count(b[1])
    plays = legal_plays(b, 5, 3)
    assert plays
    for p in plays:
        assert p.board[1][24] == 0
        assert before - pip_count(p.board[1]) == 8
    for alone in ("bar/22", "bar/20"):
        with pytest.raises(IllegalPlay):
            match_play(b, 5, 3, alone)
    two = board({"bar": 2, 13: 5, 8: 3, 6: 5}, {13: 5, 8: 3, 6: 5})
    assert all(pip_count(two[1]) - pip_count(p.board[1]) == 12 for p in legal_plays(two, 3, 3))


# ---- bearing off (rules 30-33) --------------------------------------------------------


def test_rule_29_no_bearing_off_while_a_checker_is_outside_the_home_board() -> None:
    """Rule 29: one checker on the 7-point: no roll bears off before it is home; once
    it is home, the rest of the roll may bear off (6-1: 7/6/off; 6-6: 7/1 6/off(3))."""
    b = board({7: 1, 6: 4, 5: 4, 4: 4, 3: 2}, {1: 2, 2: 2})
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            for p in legal_plays(b, d1, d2):
                if p.board[1][6]:  # still on the 7-point: nothing was borne off
                    assert borne_off(p.board[1]) == 0, (d1, d2, p.notation)
    with pytest.raises(IllegalPlay):
        match_play(b, 6, 5, "6/off 5/off")
    assert "7/off" in {p.notation for p in legal_plays(b, 6, 1)}  # 7/6/off: home first
    assert all(borne_off(p.board[1]) == 3 for p in legal_plays(b, 6, 6))  # 7/1 6/off(3)


def test_rule_30_a_die_bears_off_from_its_own_point() -> None:
    """Rule 30: all home, a 3 bears off the checker on the 3-point."""
    b = board({6: 2, 3: 1}, {1: 2})
    assert "6/5 3/off" in {p.notation for p in legal_plays(b, 3, 1)}
    after = match_play(b, 3, 1, "3/off 6/5")
    assert after[1][2] == 0 and borne_off(after[1]) == borne_off(b[1]) + 1


def test_rule_31_an_empty_point_and_a_higher_checker_the_higher_checker_moves() -> None:
    """Rule 31: checkers on the 6-point (two) and 2-point, 4-3: neither the 4- nor the
    3-point is occupied and a checker sits higher, so both dice move 6-point checkers;
    no checker may be borne off with them."""
    b = board({6: 2, 2: 1}, {1: 2})
    assert {p.notation for p in legal_plays(b, 4, 3)} == {"6/3 6/2"}
    for written in ("2/off 6/3", "6/2 2/off", "6/3 2/off"):
        with pytest.raises(IllegalPlay):
            match_play(b, 4, 3, written)


def test_rule_32_no_higher_checker_the_die_bears_off_from_the_highest_point() -> None:
    """Rule 32: checkers only on the 3- and 2-points, 6-5: the 6 bears off from the 3
    (the highest), then the 5 from the 2: both off in one play."""
    b = board({3: 1, 2: 1}, {1: 2})
    assert [p.notation for p in legal_plays(b, 6, 5)] == ["3/off 2/off"]
    st = running((side({3: 1, 2: 1}), side({6: 15})), turn=0, dice=(6, 5))
    st, _ = apply(st, "a", {"action": "move", "play": "3/off 2/off"})
    assert st.last_result is not None and st.last_result.winner == 0


def test_rule_33_bearing_off_is_not_compulsory() -> None:
    """Rule 33: checkers on the 6-point (two) and 5-point, 5-2: the 5 may bear off from
    the 5-point, or move 6/1 instead; both kinds of play are legal."""
    b = board({6: 2, 5: 1}, {1: 2})
    plays = legal_plays(b, 5, 2)
    assert any(borne_off(p.board[1]) > borne_off(b[1]) for p in plays)
    kept = [p.notation for p in plays if borne_off(p.board[1]) == borne_off(b[1])]
    assert "6/1 5/3" in kept and "6/4 6/1" in kept


# ---- clocks (rules 8, 9) -------------------------------------------------------------

CLOCK = ClockSettings(turn_ms=10_000, reserve_ms=40_000, reconnect_ms=60_000)


async def test_rule_8_past_the_turn_clock_the_main_clock_counts_down() -> None:
    """Rule 8: turn 10 s, main 40 s. While the turn clock runs the main clock is full;
    once it is at 0 the main clock counts down from what it has left."""
    now = FakeClock()
    host, _, _ = await started_host("rule8", now)
    table_id = await full_table(host, USD_SINGLE, CLOCK)
    first = public_of(host, table_id)["to_act"]
    left = host.view(table_id, first).turn_seconds_left  # turn clock + main clock
    assert left == 50.0
    now.now += 6_000
    assert host.view(table_id, first).turn_seconds_left == 44.0  # 4 s turn + 40 s main
    now.now += 4_000
    assert host.view(table_id, first).turn_seconds_left == 40.0  # turn at 0, main full
    now.now += 12_000
    assert host.view(table_id, first).turn_seconds_left == 28.0  # main 40 -> 28
    await host.stop()


async def test_rule_9_the_main_clock_runs_only_past_the_turn_clock_and_lasts_the_game() -> None:
    """Rule 9: acting within the turn clock leaves the main clock untouched; time taken
    from it in one turn is gone for the rest of the game (one allowance, OQ 6)."""
    now = FakeClock()
    host, _, _ = await started_host("rule9", now)
    table_id = await full_table(host, USD_SINGLE, CLOCK)
    first = public_of(host, table_id)["to_act"]
    other = next(p for p in PLAYERS if p != first)
    now.now += 9_000  # within the 10 s turn clock
    await play_first_move(host, table_id)
    await host.act(table_id, other, "r", {"action": "roll"})
    plays = host.view(table_id, other).view["legal"]["plays"]
    await host.act(table_id, other, "m", {"action": "move", "play": plays[0]})
    assert host.view(table_id, first).turn_seconds_left == 50.0  # main clock untouched
    now.now += 18_000  # 8 s of the main clock
    await host.act(table_id, first, "r2", {"action": "roll"})
    plays = host.view(table_id, first).view["legal"]["plays"]
    await host.act(table_id, first, "m2", {"action": "move", "play": plays[0]})
    await host.act(table_id, other, "r3", {"action": "roll"})
    plays = host.view(table_id, other).view["legal"]["plays"]
    await host.act(table_id, other, "m3", {"action": "move", "play": plays[0]})
    assert host.view(table_id, first).turn_seconds_left == 42.0  # 10 s + 32 s left
    await host.stop()


async def test_rule_9_each_game_starts_with_a_full_main_clock() -> None:
    """Rule 9 (OQ 6): the main clock is one allowance per game. The first mover spends
    15 s of his 40 s main clock, then the game ends on a dropped double; both are
    ready and the table deals the next game, in which he should again have 10 s + 40 s."""
    now = FakeClock()
    host, _, _ = await started_host("rule9-next-game", now)
    table_id = await full_table(host, USD_SINGLE, CLOCK)
    try:
        first = public_of(host, table_id)["to_act"]
        other = next(p for p in PLAYERS if p != first)
        now.now += 25_000  # 15 s past the turn clock
        await play_first_move(host, table_id)
        await host.act(table_id, other, "d", {"action": "double"})
        await host.act(table_id, first, "x", {"action": "drop"})
        for player in PLAYERS:  # both ready for the next money game
            await host.act(table_id, player, f"ready-{player}", {"action": "ready"})
        view = public_of(host, table_id)
        assert view["game"] == 2 and view["phase"] == "moving"
        if view["to_act"] != first:  # let the other player open the second game
            plays = host.view(table_id, other).view["legal"]["plays"]
            await host.act(table_id, other, "m", {"action": "move", "play": plays[0]})
            await host.act(table_id, first, "r", {"action": "roll"})  # the turn goes on
        assert host.view(table_id, first).turn_seconds_left == 50.0
    finally:
        await host.stop()


async def test_rule_7_a_taken_double_does_not_reset_the_doublers_turn_clock() -> None:
    """Rule 7: the turn clock resets at the start of each turn, not within one. The
    doubler spends 9 s of his 10 s turn, doubles, the double is taken at once: his turn
    goes on with 1 s of turn clock + 40 s main clock (not a fresh 10 s)."""
    now = FakeClock()
    host, _, _ = await started_host("rule7-double", now)
    try:
        table_id = await full_table(host, USD_SINGLE, CLOCK)
        first = await play_first_move(host, table_id)
        other = next(p for p in PLAYERS if p != first)
        now.now += 9_000
        await host.act(table_id, other, "d", {"action": "double"})
        await host.act(table_id, first, "t", {"action": "take"})
        assert host.view(table_id, other).turn_seconds_left == 41.0
    finally:
        await host.stop()


# ---- settlement and commission (rules 43, 44; vectors 3, 4, 5, 6, 8) -------------------------


def test_rule_43_the_loser_is_debited_the_amount_the_winner_gets_it_less_commission() -> None:
    """Rule 43: a $4 gammon (stake $1, cube 2) through the table adapter: the loser's
    delta is -$4.00, the winner's +$4.00 - 2 x 26c, the commission booked to the winner."""
    state = seated({"mode": "single", "stake": 100, "max_win": 5000, "currency": "USD"})
    state, _ = ENGINE.apply(state, StartHand(bytes(32)))
    assert state.game is not None
    g = state.game
    winner, loser = g.players[g.turn], g.players[1 - g.turn]
    boards = (side({1: 1}), side({6: 15}))
    last = replace(
        g,
        boards=boards if g.turn == 0 else (boards[1], boards[0]),
        dice=(2, 1),
        cube=2,
        cube_owner=1 - g.turn,
    )
    state, _ = ENGINE.apply(
        replace(state, game=last), Act(winner, {"action": "move", "play": "1/off"})
    )
    result = ENGINE.result(state)
    assert result is not None
    assert result.details["result"] == "gammon" and result.details["amount"] == 400
    assert dict(result.deltas) == {winner: 400 - 52, loser: -400}
    assert dict(result.commission) == {winner: 52}
    assert result.currency == "USD"


@pytest.mark.parametrize(("amount", "per_player"), [(10, 3), (49, 3), (50, 4), (1000, 65)])
def test_rule_40_the_winner_pays_the_commission_of_both_players(
    amount: int, per_player: int
) -> None:
    """Rule 40: the commission is twice the per-player amount, all of it charged to the
    winner; the loser pays the amount passing and nothing more."""
    loser, result = lost_on_time({"mode": "single", "stake": amount, "currency": "USD"})
    winner = next(p for p in PLAYERS if p != loser)
    assert dict(result.commission) == {winner: 2 * per_player}
    assert dict(result.deltas) == {winner: amount - 2 * per_player, loser: -amount}


@pytest.mark.parametrize("amount", [10, 25, 49, 50, 100, 201, 1000, 9999])
def test_rule_44_single_games_and_series_pay_the_same_commission(amount: int) -> None:
    """Rule 44: the same amount passing costs the same commission in a single game and
    at the end of a series (OQ 4), the wallet's calculator in both. "Dark Room" is no
    table type of this implementation (OQ 15: a room with normal commission), so a
    table carrying a room label settles exactly like any other."""
    expected = backgammon_commission(amount, CURRENCIES["USD"]).total
    single = {"mode": "single", "stake": amount, "currency": "USD"}
    series = {"mode": "series", "stake": amount, "points": 3, "currency": "USD"}
    dark = {**single, "room": "dark_room"}
    for options in (single, series, dark):
        loser, result = lost_on_time(options)
        winner = next(p for p in PLAYERS if p != loser)
        assert dict(result.deltas) == {winner: amount - expected, loser: -amount}, options
        assert sum(result.commission.values()) == expected


def test_vector_3_ten_cents_single_win() -> None:
    """Vector 3: stake $0.10, single win: commission 3c x 2; winner +$0.04, loser -$0.10."""
    st = a_bears_off_last(side({6: 14}), options=Options(stake=10))
    assert deltas(st) == {"a": 4, "b": -10}


def test_vector_4_fifty_cents_rounds_up_per_player() -> None:
    """Vector 4: stake $0.50: 3.25c rounds up to 4c per player, 8c total; +$0.42, -$0.50."""
    st = a_bears_off_last(side({6: 14}), options=Options(stake=50))
    assert deltas(st) == {"a": 42, "b": -50}


def test_vector_5_one_dollar_single_win() -> None:
    """Vector 5: stake $1: 6.5c rounds up to 7c per player, 14c total; winner +$0.86."""
    st = a_bears_off_last(side({6: 14}), options=Options(stake=100))
    assert deltas(st) == {"a": 86, "b": -100}


def test_vector_6_gammon_at_cube_two_under_the_maximum() -> None:
    """Vector 6: stake $1, cube 2, gammon, maximum $50: $4 passes; 26c x 2; +$3.48."""
    st = a_bears_off_last(
        side({6: 15}), options=Options(stake=100, max_win=5000), cube=2, cube_owner=1
    )
    assert st.last_result is not None and st.last_result.result == "gammon"
    assert deltas(st) == {"a": 348, "b": -400}


def test_vector_8_the_tier_follows_the_amount_passing() -> None:
    """Vector 8: stake $0.25, gammon, cube 1: $0.50 passes, so the 6.5 % tier (OQ 1):
    4c x 2 = 8c; winner +$0.42 (not the flat 3c x 2 of a $0.25 stake)."""
    st = a_bears_off_last(side({6: 15}), options=Options(stake=25))
    assert payout(st) == 50
    assert deltas(st) == {"a": 42, "b": -50}
