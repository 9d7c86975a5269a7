"""The game and series engine: cube, beaver, results, series, Crawford, automatic moves."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from croupier.backgammon.core.board import STARTING_BOARD, Side
from croupier.backgammon.core.game import (
    Options,
    State,
    apply,
    deltas,
    legal_actions,
    new_table,
    public_view,
    start_game,
    timeout_action,
)
from croupier.backgammon.tools.conformance import run_scenario
from croupier.game import RuleBroken
from croupier.game.fairness import FairStream
from tests.support.backgammon import side

OPENING_31 = {"player": "white", "action": "move", "play": "8/5 6/5"}


def game(actions: list[dict[str, Any]], rolls: list[list[int]], **extra: Any) -> dict[str, Any]:
    doc = {
        "game": "backgammon",
        "kind": "game",
        "mode": "single",
        "stake": 100,
        "players": ["white", "black"],
        "rolls": rolls,
        "actions": actions,
    }
    doc.update(extra)
    return run_scenario(doc)


def running(
    boards: tuple[Side, Side],
    turn: int = 0,
    dice: tuple[int, int] | None = None,
    options: Options | None = None,
    **fields: Any,
) -> State:
    st = new_table(options or Options(stake=100), ("a", "b"))
    return replace(
        st,
        phase="moving" if dice else "turn",
        boards=boards,
        turn=turn,
        dice=dice,
        game_number=1,
        **fields,
    )


def test_readme_example_plays_through() -> None:
    out = game(
        [
            OPENING_31,
            {"player": "black", "action": "double"},
            {"player": "white", "action": "beaver"},
            {"player": "black", "action": "take"},
            {"player": "black", "action": "move", "play": "24/18 13/9"},
            {"player": "white", "action": "resign", "level": "single"},
        ],
        [[3, 1], [6, 4]],
        beaver=True,
        max_win=3200,
    )
    assert out["error"] is None
    assert out["status"] == "awaiting_action"
    assert (out["cube"], out["cube_owner"], out["to_act"]) == (4, "white", "black")


def test_vector_9_refused_first_double_pays_the_stake() -> None:
    """Vector 9: stake $5, cube centred, A doubles, B refuses: B pays $5."""
    out = game(
        [
            OPENING_31,
            {"player": "black", "action": "double"},
            {"player": "white", "action": "drop"},
        ],
        [[3, 1]],
        stake=500,
    )
    assert (out["status"], out["winner"], out["result"]) == ("complete", "black", "single")
    assert (out["cube"], out["points"], out["payout"]) == (1, 1, 500)


def test_vector_10_refused_redouble_pays_the_cube_before_the_offer() -> None:
    """Vector 10: stake $5, B owns the cube at 4, redoubles to 8, A refuses: A pays $20."""
    out = game(
        [
            OPENING_31,
            {"player": "black", "action": "double"},
            {"player": "white", "action": "take"},
            {"player": "black", "action": "move", "play": "24/18 13/9"},
            {"player": "white", "action": "double"},
            {"player": "black", "action": "take"},
            {"player": "white", "action": "move", "play": "13/7 13/9"},
            {"player": "black", "action": "double"},
            {"player": "white", "action": "drop"},
        ],
        [[3, 1], [6, 4], [6, 4]],
        stake=500,
    )
    assert out["error"] is None
    assert (out["winner"], out["cube"], out["points"], out["payout"]) == ("black", 4, 4, 2000)


def test_rule_15_only_the_owner_redoubles() -> None:
    out = game(
        [
            OPENING_31,
            {"player": "black", "action": "double"},
            {"player": "white", "action": "take"},
            {"player": "black", "action": "move", "play": "24/18 13/9"},
            {"player": "white", "action": "move", "play": "13/7 13/9"},
            {"player": "black", "action": "double"},
        ],
        [[3, 1], [6, 4], [6, 4]],
    )
    assert out["error"]["action_index"] == 5


def test_rule_14_no_double_after_rolling_or_out_of_turn() -> None:
    out = game([OPENING_31, {"player": "white", "action": "double"}], [[3, 1]])
    assert out["error"]["action_index"] == 1
    out = game([{"player": "white", "action": "double"}], [[3, 1]])  # before the opening move
    assert out["error"]["action_index"] == 0


@pytest.mark.parametrize(
    ("answer", "payout", "owner"), [("drop", 400, "black"), ("take", 0, "black")]
)
def test_vector_11_beaver(answer: str, payout: int, owner: str) -> None:
    """Vector 11: stake $2, A doubles 1->2, B beavers (cube 4, B owns); A refuses: pays $4."""
    out = game(
        [
            OPENING_31,
            {"player": "black", "action": "move", "play": "24/18 13/9"},
            {"player": "white", "action": "double"},
            {"player": "black", "action": "beaver"},
            {"player": "white", "action": answer},
        ],
        [[3, 1], [6, 4]],
        stake=200,
        beaver=True,
    )
    assert out["error"] is None
    assert out["payout"] == payout
    if answer == "drop":
        assert (out["winner"], out["cube"], out["points"]) == ("black", 2, 2)
    else:
        assert (out["cube"], out["cube_owner"], out["to_act"]) == (4, owner, "white")


def test_beaver_needs_the_option_and_single_mode() -> None:
    actions = [
        OPENING_31,
        {"player": "black", "action": "double"},
        {"player": "white", "action": "beaver"},
    ]
    assert game(actions, [[3, 1]])["error"]["action_index"] == 2
    assert (
        game(actions, [[3, 1]], mode="match", points=5, beaver=True)["error"]["action_index"] == 2
    )


def test_vector_12_cube_cap_64() -> None:
    """Vector 12: no double at 64; a double 32->64 cannot be beavered (it would be 128)."""
    st = running((STARTING_BOARD[0], STARTING_BOARD[1]), turn=0, cube=64, cube_owner=0)
    with pytest.raises(RuleBroken):
        apply(st, "a", {"action": "double"})
    st = running(
        (STARTING_BOARD[0], STARTING_BOARD[1]),
        turn=0,
        cube=32,
        cube_owner=0,
        options=Options(stake=100, beaver=True),
    )
    st, _ = apply(st, "a", {"action": "double"})
    assert "beaver" not in legal_actions(st, "b")["actions"]
    with pytest.raises(RuleBroken):
        apply(st, "b", {"action": "beaver"})
    st, _ = apply(st, "b", {"action": "take"})
    assert (st.cube, st.cube_owner) == (64, 1)


def _last_checker(loser: Side, options: Options | None = None, cube: int = 1, **kw: Any) -> State:
    return running((side({1: 1}), loser), turn=0, dice=(2, 1), options=options, cube=cube, **kw)


def test_vector_15_single_when_the_loser_has_borne_off() -> None:
    st, _ = apply(_last_checker(side({24: 1, 6: 13})), "a", {"action": "move", "play": "1/off"})
    assert st.last_result is not None and st.last_result.result == "single"


def test_vector_16_gammon() -> None:
    st, _ = apply(
        _last_checker(side({6: 5, 8: 5, 12: 5})), "a", {"action": "move", "play": "1/off"}
    )
    assert st.last_result is not None
    assert (st.last_result.result, st.last_result.points) == ("gammon", 2)


def test_vector_17_backgammon_in_the_winners_home_board() -> None:
    """Vector 17: the loser has a checker on the winner's 3-point (the loser's 22-point)."""
    st, _ = apply(_last_checker(side({22: 1, 6: 14})), "a", {"action": "move", "play": "1/off"})
    assert st.last_result is not None and st.last_result.result == "backgammon"


def test_oq9_backgammon_with_a_checker_on_the_bar() -> None:
    st, _ = apply(_last_checker(side({"bar": 1, 6: 14})), "a", {"action": "move", "play": "1/off"})
    assert st.last_result is not None and st.last_result.result == "backgammon"


def test_rule_5_payout_capped_and_settled_with_commission() -> None:
    """Rule 5 + vector 7: $10 stake, cube 8, backgammon, max $100 -> $100 passes."""
    opts = Options(stake=1000, max_win=10000)
    st, _ = apply(
        _last_checker(side({"bar": 1, 6: 14}), options=opts, cube=8, cube_owner=1),
        "a",
        {"action": "move", "play": "1/off"},
    )
    assert deltas(st) == {"a": 8700, "b": -10000}


def test_vector_13_series_ends_when_the_target_is_reached() -> None:
    """Vector 13: series to 7 at 3-5; the player on 3 wins a gammon at cube 2 -> 7-5."""
    opts = Options(mode="match", stake=5000, points=7)
    st = _last_checker(side({6: 15}), options=opts, cube=2, cube_owner=1, score=(3, 5))
    st, events = apply(st, "a", {"action": "move", "play": "1/off"})
    assert st.score == (7, 5)
    assert st.match_winner == 0 and st.complete
    assert any(e.type == "match_ended" for e in events)
    assert deltas(st) == {"a": 5000 - 2 * 325, "b": -5000}  # OQ 4: commission on the series stake


def test_vector_14_series_refused_double_at_2_scores_2() -> None:
    out = game(
        [
            OPENING_31,
            {"player": "black", "action": "double"},
            {"player": "white", "action": "take"},
            {"player": "black", "action": "move", "play": "24/18 13/9"},
            {"player": "white", "action": "double"},
            {"player": "black", "action": "drop"},
        ],
        [[3, 1], [6, 4]],
        mode="match",
        points=5,
    )
    assert out["error"] is None
    assert out["score"] == {"white": 2, "black": 0}
    assert (out["status"], out["winner"], out["points"], out["payout"]) == (
        "awaiting_action",
        None,
        2,
        0,
    )


def test_oq10_crawford_game_then_post_crawford() -> None:
    """OQ 10: in a 3-point match, after 2-0 the next game has no doubling; then it has."""
    resign_gammon = [
        {"player": "black", "action": "resign", "level": "gammon"},
        {"player": "white", "action": "accept"},
    ]
    crawford = [
        {"player": "black", "action": "move", "play": "8/5 6/5"},
        {"player": "white", "action": "double"},
    ]
    out = game([OPENING_31, *resign_gammon, *crawford], [[3, 1], [1, 3]], mode="match", points=3)
    assert out["error"]["action_index"] == 4
    assert out["score"] == {"white": 2, "black": 0}
    post = [
        {"player": "black", "action": "move", "play": "8/5 6/5"},
        {"player": "white", "action": "resign", "level": "single"},
        {"player": "black", "action": "accept"},
        OPENING_31,
        {"player": "black", "action": "double"},
        {"player": "white", "action": "drop"},
    ]
    out = game(
        [OPENING_31, *resign_gammon, *post], [[3, 1], [1, 3], [3, 1]], mode="match", points=3
    )
    assert out["error"] is None
    assert out["score"] == {"white": 2, "black": 2}
    out = game(
        [OPENING_31, *resign_gammon, *crawford],
        [[3, 1], [1, 3]],
        mode="match",
        points=3,
        crawford=False,
    )
    assert out["error"] is None


def test_match_completes_with_the_series_stake() -> None:
    out = game(
        [
            OPENING_31,
            {"player": "black", "action": "resign", "level": "backgammon"},
            {"player": "white", "action": "accept"},
        ],
        [[3, 1]],
        mode="match",
        points=3,
        stake=1000,
    )
    assert (out["status"], out["winner"], out["result"], out["points"], out["payout"]) == (
        "complete",
        "white",
        "backgammon",
        3,
        1000,
    )
    assert out["score"] == {"white": 3, "black": 0}


def test_resignation_rejected_play_goes_on() -> None:
    out = game(
        [
            OPENING_31,
            {"player": "black", "action": "resign", "level": "single"},
            {"player": "white", "action": "reject"},
            {"player": "black", "action": "move", "play": "24/18 13/9"},
        ],
        [[3, 1], [6, 4]],
    )
    assert out["error"] is None and out["to_act"] == "white"


def test_illegal_moves_and_players_are_reported_with_their_index() -> None:
    assert (
        game([{"player": "black", "action": "move", "play": "8/5 6/5"}], [[3, 1]])["error"][
            "action_index"
        ]
        == 0
    )
    assert (
        game([{"player": "white", "action": "move", "play": "8/3"}], [[3, 1]])["error"][
            "action_index"
        ]
        == 0
    )
    assert (
        game([OPENING_31, {"player": "black", "action": "move", "play": "24/18 13/9"}], [[3, 1]])[
            "error"
        ]["action_index"]
        == 1
    )  # no roll left
    assert game([{"player": "white", "action": "fly"}], [[3, 1]])["error"]["action_index"] == 0


def test_rule_26_no_move_is_answered_with_the_empty_play() -> None:
    rolls = [[3, 1]]
    out = game([OPENING_31, {"player": "black", "action": "move", "play": ""}], [*rolls, [6, 4]])
    assert out["error"]["action_index"] == 1  # black can move: the empty play is illegal
    st = running((side({6: 2, 5: 2, 4: 2}), side({"bar": 1, 6: 14})), turn=1, dice=(6, 5))
    st2, _ = apply(st, "b", {"action": "move", "play": ""})
    assert (st2.phase, st2.turn) == ("turn", 0)


def test_rule_35_automatic_move_plays_a_forced_turn_and_passes() -> None:
    """Rule 35: with automatic move on, a single legal play is made and the turn passes."""
    boards = (side({13: 5, 8: 3, 6: 5, 5: 2}), side({"bar": 2, 13: 5, 8: 3, 6: 5}))
    st = running(boards, turn=1, auto_move=(False, True))
    st, events = apply(st, "b", {"action": "roll", "dice": [5, 3]})
    assert [e.type for e in events] == ["rolled", "moved"]
    assert events[1].data["play"] == "bar/22" and events[1].data["automatic"] is True
    assert (st.phase, st.turn, st.boards[1][24]) == ("turn", 0, 1)
    # Without the option the same roll waits for the player
    st = running(boards, turn=1)
    st, events = apply(st, "b", {"action": "roll", "dice": [5, 3]})
    assert (st.phase, st.turn) == ("moving", 1)
    assert legal_actions(st, "b")["plays"] == ["bar/22"]


def test_oq5_timeout_loses() -> None:
    st = running((STARTING_BOARD[0], STARTING_BOARD[1]), turn=0, cube=2, cube_owner=1)
    assert timeout_action(st, "a") == {"action": "timeout"}
    st, _ = apply(st, "a", timeout_action(st, "a"))
    assert st.last_result is not None
    assert (st.last_result.winner, st.last_result.points) == (1, 2)


def test_dice_come_from_the_seed() -> None:
    """Opening: one die each from FairStream(seed, 'dice'), ties re-rolled; then pairs."""
    seed = bytes(range(32))
    stream = FairStream(seed, "dice")
    dice = [stream.die() for _ in range(40)]
    pairs = list(zip(dice[::2], dice[1::2], strict=True))
    k = next(i for i, (a, b) in enumerate(pairs) if a != b)
    st = new_table(Options(stake=100), ("a", "b"))
    st, _ = start_game(st, seed=seed)
    a, b = pairs[k]
    assert st.turn == (0 if a > b else 1)
    assert sorted(st.dice or ()) == sorted(pairs[k])
    # play the opening move, then the next roll comes from the stream
    play = legal_actions(st, st.players[st.turn])["plays"][0]
    st, _ = apply(st, st.players[st.turn], {"action": "move", "play": play})
    with pytest.raises(RuleBroken):
        apply(st, st.players[st.turn], {"action": "roll", "dice": [6, 6]})
    st, _ = apply(st, st.players[st.turn], {"action": "roll"})
    assert st.dice == pairs[k + 1]
    view = public_view(st)
    assert "seed" not in view and view["dice"] == list(pairs[k + 1])


def test_oq10_no_crawford_game_before_anyone_has_won_one() -> None:
    """In a 1-point match nobody *reached* match-1 by winning: the first game is not Crawford."""
    out = game(
        [
            OPENING_31,
            {"player": "black", "action": "double"},
            {"player": "white", "action": "drop"},
        ],
        [[3, 1]],
        mode="match",
        points=1,
    )
    assert out["error"] is None
    assert (out["status"], out["winner"], out["score"]) == (
        "complete",
        "black",
        {"white": 0, "black": 1},
    )


def test_moved_event_carries_the_canonical_notation() -> None:
    st = running((STARTING_BOARD[0], STARTING_BOARD[1]), turn=0, dice=(3, 1))
    _, events = apply(st, "a", {"action": "move", "play": "6/5  8/5*"})
    assert events[0].data["play"] == "8/5 6/5"


def test_views_carry_gnubg_ids() -> None:
    """The view's Position ID is from the player on roll; its Match ID decodes to the state."""
    from croupier.backgammon.core.board import board_from_position_id
    from croupier.backgammon.core.matchid import decode_match_id

    st = new_table(Options(mode="match", points=5, stake=100), ("a", "b"))
    st, _ = start_game(st, opening=(3, 1))
    st, _ = apply(st, "a", {"action": "move", "play": "8/5 6/5"})
    st, _ = apply(st, "b", {"action": "double"})
    view = public_view(st)
    assert board_from_position_id(view["position_id"]) == st.board  # b on roll: mover = b
    key = decode_match_id(view["match_id"])
    assert (key.cube, key.cube_owner, key.on_roll, key.turn, key.doubled) == (1, None, 1, 0, True)
    assert (key.match_length, key.score, key.crawford) == (5, (0, 0), False)


def test_rule_13_and_17_cube_starts_centred_and_the_taker_owns_it() -> None:
    """Rule 13: cube 1, centred, either player may double first; rule 17: x2, taker owns."""
    st = new_table(Options(stake=100), ("a", "b"))
    st, _ = start_game(st, opening=(1, 3))  # b moves first
    assert (st.cube, st.cube_owner) == (1, None)
    st, _ = apply(st, "b", {"action": "move", "play": "8/5 6/5"})
    assert st.can_double(0)
    st, events = apply(st, "a", {"action": "double"})
    assert events[0].type == "double_offered"
    st, events = apply(st, "b", {"action": "take"})
    assert (st.cube, st.cube_owner, events[0].type) == (2, 1, "double_taken")
    assert not st.can_double(0)
