"""One backgammon game or a whole series, as an immutable state and `apply`.

`apply(state, player, action) -> (state, events)` takes actions in the conformance notation
(`{"action": "move", "play": "8/5 6/5"}`) and raises `RuleBroken` for an illegal one, leaving
the state untouched. Dice are inputs: a game started with a 32-byte seed derives every die
from `FairStream(seed, "dice").die()` (opening roll: one die each, ties re-rolled); a game
started without a seed takes explicit dice (`{"action": "roll", "dice": [3, 1]}`), which is
how the conformance replayer drives it.

Phases: `turn` (the player on turn may double, resign or roll), `moving` (dice rolled: the
player plays or resigns), `doubled` (the other player takes, drops or beavers), `beavered`
(the doubler takes or drops the beaver), `resigning` (the other player accepts or rejects),
`game_over` (between games of a series, or the end), `idle` (no game started yet).

Seed 001 rules implemented here: 13-21 (cube, beaver), 22 (first off wins), 3-6 and
36-38 (results, multipliers, backgammon counting the bar: OQ 9), 35 (automatic move),
OQ 5 (a timeout loses: single game at the current cube, series: the whole series),
OQ 10 (Crawford, default on), OQ 11 (no Jacoby), OQ 12 (beaver: single mode only, result
at most 64, no raccoon). Resignations: single / gammon / backgammon, accepted or rejected.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from croupier.backgammon.core.board import STARTING_BOARD, Board, borne_off, position_id
from croupier.backgammon.core.commission import MAX_CUBE
from croupier.backgammon.core.errors import (
    CubeUnavailable,
    DiceFromSeed,
    IllegalMove,
    InvalidAction,
    NotYourTurn,
    WrongPhase,
)
from croupier.backgammon.core.moves import legal_plays, legal_positions, match_play
from croupier.backgammon.core.notation import IllegalPlay
from croupier.backgammon.core.state import (
    MULTIPLIER,
    RESULTS,
    GameResult,
    Mode,
    Options,
    Phase,
    State,
    new_table,
)
from croupier.backgammon.core.views import (
    deltas,
    legal_actions,
    match_key,
    payout,
    public_view,
    result_points,
    settlement,
    snapshot,
    timeout_action,
)
from croupier.game import Event
from croupier.game.fairness import FairStream
from croupier.game.limits import echo

# The engine's API in one place: this module's transitions, the state types and views.
__all__ = [
    "MULTIPLIER",
    "RESULTS",
    "GameResult",
    "Mode",
    "Options",
    "Phase",
    "State",
    "apply",
    "deltas",
    "legal_actions",
    "match_key",
    "new_table",
    "payout",
    "public_view",
    "result_points",
    "settlement",
    "snapshot",
    "start_game",
    "timeout_action",
]

JSON = dict[str, Any]


def _draw(state: State, count: int) -> tuple[list[int], State]:
    """`count` dice from the game's seed, after the ones already drawn."""
    assert state.seed is not None
    stream = FairStream(state.seed, "dice")
    for _ in range(state.dice_drawn):
        stream.die()
    dice = [stream.die() for _ in range(count)]
    return dice, replace(state, dice_drawn=state.dice_drawn + count)


def start_game(
    state: State, seed: bytes | None = None, opening: tuple[int, int] | None = None
) -> tuple[State, list[Event]]:
    """Start the next game: opening roll (from the seed, or explicit), first mover to play.

    `opening` is (players[0]'s die, players[1]'s die) and must not be a tie.
    """
    if state.phase not in ("idle", "game_over"):
        raise WrongPhase("a game is running")
    if state.options.mode == "match" and state.match_winner is not None:
        raise WrongPhase("the series is over")
    if (seed is None) == (opening is None):
        raise InvalidAction("start a game with a seed or an explicit opening roll")
    crawford_game = False
    crawford_used = state.crawford_used
    opts = state.options
    if (
        opts.mode == "match"
        and opts.crawford
        and not crawford_used
        and state.game_number > 0  # someone reached match-1 by winning a game
        and max(state.score) == opts.points - 1
    ):
        crawford_game = crawford_used = True
    st = replace(
        state,
        phase=Phase.MOVING,
        boards=STARTING_BOARD,
        cube=1,
        cube_owner=None,
        doubler=None,
        resign_level=None,
        resume_phase=None,
        crawford_game=crawford_game,
        crawford_used=crawford_used,
        game_number=state.game_number + 1,
        last_result=None,
        seed=seed,
        dice_drawn=0,
        moves_made=0,
    )
    events = []
    if opening is None:
        rerolls = 0
        while True:
            (a, b), st = _draw(st, 2)
            if a != b:
                break
            rerolls += 1
        opening = (a, b)
        if rerolls:
            events.append(Event("opening_rerolled", {"rerolls": rerolls}))
    a, b = opening
    if not (1 <= a <= 6 and 1 <= b <= 6) or a == b:
        raise InvalidAction(f"an opening roll is two different dice, got {a}-{b}")
    first = 0 if a > b else 1
    dice = (a, b) if first == 0 else (b, a)
    st = replace(st, turn=first, dice=dice)
    events.insert(
        0,
        Event(
            "game_started",
            {
                "game": st.game_number,
                "opening": {st.players[0]: a, st.players[1]: b},
                "first": st.players[first],
                "crawford": crawford_game,
            },
        ),
    )
    return _after_roll(st, events)


# --- actions ---------------------------------------------------------------------------


def apply(state: State, player: str, action: JSON) -> tuple[State, list[Event]]:
    """Apply one action by `player`; raises RuleBroken (state unchanged) when not allowed."""
    if not isinstance(action, dict) or not isinstance(action.get("action"), str):
        raise InvalidAction("an action is an object with an 'action' name")
    who = state.index(player)
    name = action["action"]
    if name == "auto_move":
        on = action.get("on")
        if not isinstance(on, bool):
            raise InvalidAction("auto_move needs 'on': true or false")
        flags = list(state.auto_move)
        flags[who] = on
        st = replace(state, auto_move=(flags[0], flags[1]))
        events = [Event("auto_move_set", {"player": player, "on": on})]
        if on and st.phase == "moving" and st.turn == who:
            return _after_roll(st, events)
        return st, events
    handler = _HANDLERS.get(name)
    if handler is None:
        raise InvalidAction(f"unknown action {echo(name)}")
    if state.phase in ("idle", "game_over"):
        raise WrongPhase("no game is running")
    if state.actor != who:
        raise NotYourTurn(f"it is not {player}'s turn to act")
    return handler(state, who, action)


def _roll(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    if state.phase != "turn":
        raise WrongPhase("rolling is only allowed at the start of a turn")
    given = action.get("dice")
    if state.seed is not None:
        if given is not None:
            raise DiceFromSeed("the dice of this game come from its seed")
        (a, b), st = _draw(state, 2)
    else:
        if (
            not isinstance(given, list | tuple)
            or len(given) != 2
            or not all(
                isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in given
            )
        ):
            raise InvalidAction("a roll without a seed needs 'dice': [d1, d2]")
        a, b = given
        st = state
    st = replace(st, phase=Phase.MOVING, dice=(a, b))
    return _after_roll(st, [Event("rolled", {"player": st.players[who], "dice": [a, b]})])


def _after_roll(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    """With automatic move on (rule 35), a forced play is made and the turn passes."""
    if not state.auto_move[state.turn] or state.dice is None:
        return state, events
    d1, d2 = state.dice
    options = legal_positions(state.board, d1, d2)
    if len(options) != 1:
        return state, events
    plays = legal_plays(state.board, d1, d2)
    notation = plays[0].notation if plays else ""
    st, more = _finish_move(state, options[0], notation, automatic=True)
    return st, events + more


def _move(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    if state.phase != "moving" or state.dice is None:
        raise WrongPhase("roll before moving")
    play = action.get("play")
    if not isinstance(play, str):
        raise InvalidAction("a move needs 'play': a string in gnubg notation")
    d1, d2 = state.dice
    try:
        after = match_play(state.board, d1, d2, play)
    except IllegalPlay as exc:
        raise IllegalMove(str(exc)) from None
    canonical = next((p.notation for p in legal_plays(state.board, d1, d2) if p.board == after), "")
    return _finish_move(state, after, canonical, automatic=False)


def _finish_move(
    state: State, after: Board, notation: str, automatic: bool
) -> tuple[State, list[Event]]:
    who = state.turn
    boards = (after[1], after[0]) if who == 0 else (after[0], after[1])
    event = Event(
        "moved",
        {
            "player": state.players[who],
            "dice": list(state.dice or ()),
            "play": notation,
            "automatic": automatic,
            "position": position_id(after),
        },
    )
    st = replace(state, boards=boards, moves_made=state.moves_made + 1)
    if borne_off(boards[who]) == 15:
        loser_side = boards[1 - who]
        if borne_off(loser_side) > 0:
            result = "single"
        elif loser_side[24] or any(loser_side[18:24]):
            result = "backgammon"
        else:
            result = "gammon"
        return _end_game(st, who, result, st.cube, "bear_off", [event])
    st = replace(st, phase=Phase.TURN, turn=1 - who, dice=None)
    return st, [event]


def _double(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    if not state.can_double(who):
        if state.phase != "turn":
            why = "a double is offered only at the start of one's turn, before rolling"
        elif state.options.mode == "match" and state.crawford_game:
            why = "no doubling in the Crawford game"
        elif state.cube * 2 > MAX_CUBE:
            why = f"the cube cannot go above {MAX_CUBE}"
        else:
            why = "only the cube owner may redouble"
        raise CubeUnavailable(why)
    st = replace(state, phase=Phase.DOUBLED, doubler=who)
    return st, [Event("double_offered", {"player": state.players[who], "to": state.cube * 2})]


def _take(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    if state.phase == "doubled":
        cube = state.cube * 2
    elif state.phase == "beavered":
        cube = state.cube * 4
    else:
        raise WrongPhase("no double to take")
    owner = 1 - state.turn  # the doubled player (or the beaverer) owns the cube
    st = replace(state, phase=Phase.TURN, cube=cube, cube_owner=owner, doubler=None)
    return st, [Event("double_taken", {"player": state.players[who], "cube": cube})]


def _drop(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    dropped = [Event("double_dropped", {"player": state.players[who]})]
    if state.phase == "doubled":
        # rule 16: the refuser pays the cube value before the offer
        return _end_game(state, state.turn, "single", state.cube, "drop", dropped)
    if state.phase == "beavered":
        # rule 21: refusing a beaver pays the cube value after the original double
        return _end_game(state, 1 - state.turn, "single", state.cube * 2, "drop", dropped)
    raise WrongPhase("no double to drop")


def _beaver(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    if not state.can_beaver():
        if state.phase != "doubled":
            why = "no double to beaver"
        elif state.options.mode != "single" or not state.options.beaver:
            why = "beavers are not allowed at this table"
        else:
            why = f"a beaver cannot take the cube above {MAX_CUBE}"
        raise CubeUnavailable(why)
    st = replace(state, phase=Phase.BEAVERED)
    return st, [Event("double_beavered", {"player": state.players[who], "to": state.cube * 4})]


def _resign(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    if state.phase not in ("turn", "moving"):
        raise WrongPhase("resign on your turn, before moving")
    level = action.get("level", "single")
    if level not in MULTIPLIER:
        raise InvalidAction("level is single, gammon or backgammon")
    st = replace(state, phase=Phase.RESIGNING, resign_level=level, resume_phase=state.phase)
    return st, [Event("resignation_offered", {"player": state.players[who], "level": level})]


def _accept(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    if state.phase != "resigning" or state.resign_level is None:
        raise WrongPhase("no resignation to accept")
    accepted = [Event("resignation_accepted", {"player": state.players[who]})]
    return _end_game(state, who, state.resign_level, state.cube, "resign", accepted)


def _reject(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    if state.phase != "resigning" or state.resume_phase is None:
        raise WrongPhase("no resignation to reject")
    st = replace(state, phase=state.resume_phase, resign_level=None, resume_phase=None)
    return st, [Event("resignation_rejected", {"player": state.players[who]})]


def _timeout(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    """OQ 5: the player whose clock ran out loses; answering a cube offer, it is a drop."""
    if state.phase in ("doubled", "beavered"):
        return _drop(state, who, action)
    events = [Event("timed_out", {"player": state.players[who]})]
    st, more = _end_game(state, 1 - who, "single", state.cube, "timeout", events)
    if state.options.mode == "match" and st.match_winner is None:
        st = replace(st, match_winner=1 - who)
        more.append(Event("match_ended", {"winner": st.players[1 - who], "forfeit": True}))
    return st, more


def _end_game(
    state: State, winner: int, result: str, cube: int, how: str, events: list[Event]
) -> tuple[State, list[Event]]:
    points = cube * MULTIPLIER[result]
    res = GameResult(winner=winner, result=result, cube=cube, points=points, how=how)
    st = replace(
        state,
        phase=Phase.GAME_OVER,
        cube=cube,
        dice=None,
        doubler=None,
        resign_level=None,
        resume_phase=None,
        last_result=res,
    )
    events = [
        *events,
        Event(
            "game_ended",
            {
                "winner": state.players[winner],
                "result": result,
                "cube": cube,
                "points": points,
                "how": how,
            },
        ),
    ]
    if state.options.mode == "match" and how != "timeout":
        score = list(state.score)
        score[winner] += points
        st = replace(st, score=(score[0], score[1]))
        if score[winner] >= state.options.points:
            st = replace(st, match_winner=winner)
            events.append(
                Event("match_ended", {"winner": state.players[winner], "score": list(score)})
            )
    return st, events


_HANDLERS = {
    "roll": _roll,
    "move": _move,
    "double": _double,
    "take": _take,
    "drop": _drop,
    "beaver": _beaver,
    "resign": _resign,
    "accept": _accept,
    "reject": _reject,
    "timeout": _timeout,
}
