"""One backgammon game or a whole series, as an immutable state and `apply`.

`apply(state, player, action) -> (state, events)` takes actions in the conformance notation
(`{"action": "move", "play": "8/5 6/5"}`) and raises `Rejected` for an illegal one, leaving
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

from dataclasses import dataclass, field, replace
from typing import Any

from croupier.backgammon.board import (
    STARTING_BOARD,
    Board,
    Side,
    borne_off,
    position_id,
)
from croupier.backgammon.commission import MAX_CUBE, Settlement, settle, single_game_payout
from croupier.backgammon.matchid import (
    GAME_DROP,
    GAME_NONE,
    GAME_OVER,
    GAME_PLAYING,
    GAME_RESIGNED,
    MatchKey,
    match_id,
)
from croupier.backgammon.moves import (
    IllegalPlay,
    legal_plays,
    legal_positions,
    match_play,
)
from croupier.kit.fairness import FairStream
from croupier.table.engine import Event, Rejected

JSON = dict[str, Any]

RESULTS = ("single", "gammon", "backgammon")
MULTIPLIER = {"single": 1, "gammon": 2, "backgammon": 3}


@dataclass(frozen=True)
class Options:
    """Table settings. Amounts in minor units (cents)."""

    mode: str = "single"  # "single" (money game) | "match" (series to `points`)
    stake: int = 0  # single: per point; match: the series stake
    max_win: int | None = None  # single: the most the loser pays (OQ 16: None = no cap)
    beaver: bool = False  # single mode only (rule 19)
    points: int = 0  # match length
    crawford: bool = True  # OQ 10
    tournament: bool = False  # rule 45: no commission

    def validate(self) -> None:
        if self.mode not in ("single", "match"):
            raise Rejected("invalid_argument", f"mode must be single or match, not {self.mode!r}")
        if self.stake < 0 or (self.max_win is not None and self.max_win < 0):
            raise Rejected("invalid_argument", "stake and max_win cannot be negative")
        if self.mode == "match" and self.points < 1:
            raise Rejected("invalid_argument", "a series needs points >= 1")


@dataclass(frozen=True)
class GameResult:
    winner: int
    result: str  # single | gammon | backgammon
    cube: int
    points: int  # cube x multiplier
    how: str  # "bear_off" | "drop" | "resign" | "timeout"


@dataclass(frozen=True)
class State:
    options: Options
    players: tuple[str, str]
    phase: str = "idle"
    boards: tuple[Side, Side] = STARTING_BOARD  # boards[i]: player i's checkers, own side
    turn: int = 0  # the player on turn (roller / mover)
    dice: tuple[int, int] | None = None
    cube: int = 1
    cube_owner: int | None = None
    doubler: int | None = None  # while doubled/beavered
    resign_level: str | None = None  # while resigning
    resume_phase: str | None = None  # the phase a rejected resignation returns to
    crawford_game: bool = False
    crawford_used: bool = False
    score: tuple[int, int] = (0, 0)
    game_number: int = 0
    last_result: GameResult | None = None
    match_winner: int | None = None
    auto_move: tuple[bool, bool] = (False, False)
    seed: bytes | None = field(default=None, repr=False)
    dice_drawn: int = 0
    moves_made: int = 0  # plays made in this game

    # --- queries ---------------------------------------------------------------------

    def index(self, player: str) -> int:
        try:
            return self.players.index(player)
        except ValueError:
            raise Rejected("not_found", f"{player!r} is not at this table") from None

    @property
    def board(self) -> Board:
        """gnubg's board from the view of the player on turn (mover = board[1])."""
        return (self.boards[1 - self.turn], self.boards[self.turn])

    @property
    def actor(self) -> int | None:
        """The player who must act now, or None."""
        if self.phase in ("turn", "moving"):
            return self.turn
        if self.phase in ("doubled", "resigning"):
            return 1 - self.turn
        if self.phase == "beavered":
            return self.turn
        return None

    @property
    def game_over(self) -> bool:
        return self.phase == "game_over"

    @property
    def complete(self) -> bool:
        """The single game, or the whole series, is over."""
        if self.options.mode == "match":
            return self.match_winner is not None
        return self.phase == "game_over"

    def can_double(self, player: int) -> bool:
        return (
            self.phase == "turn"
            and player == self.turn
            and (self.cube_owner is None or self.cube_owner == player)
            and self.cube * 2 <= MAX_CUBE
            and not (self.options.mode == "match" and self.crawford_game)
        )

    def can_beaver(self) -> bool:
        return (
            self.phase == "doubled"
            and self.options.mode == "single"
            and self.options.beaver
            and self.cube * 4 <= MAX_CUBE
        )


def new_table(options: Options, players: tuple[str, ...] | list[str]) -> State:
    """A table with no game started yet (phase `idle`)."""
    options.validate()
    if len(players) != 2 or players[0] == players[1]:
        raise Rejected("invalid_argument", "backgammon needs two different players")
    return State(options=options, players=(players[0], players[1]))


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
        raise Rejected("failed_precondition", "a game is running")
    if state.options.mode == "match" and state.match_winner is not None:
        raise Rejected("failed_precondition", "the series is over")
    if (seed is None) == (opening is None):
        raise Rejected("invalid_argument", "start a game with a seed or an explicit opening roll")
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
        phase="moving",
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
            events.append(Event("opening_tie", {"rerolls": rerolls}))
    a, b = opening
    if not (1 <= a <= 6 and 1 <= b <= 6) or a == b:
        raise Rejected("invalid_argument", f"an opening roll is two different dice, got {a}-{b}")
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
    """Apply one action by `player`; raises Rejected (state unchanged) when not allowed."""
    if not isinstance(action, dict) or not isinstance(action.get("action"), str):
        raise Rejected("invalid_argument", "an action is an object with an 'action' name")
    who = state.index(player)
    name = action["action"]
    if name == "auto_move":
        on = action.get("on")
        if not isinstance(on, bool):
            raise Rejected("invalid_argument", "auto_move needs 'on': true or false")
        flags = list(state.auto_move)
        flags[who] = on
        st = replace(state, auto_move=(flags[0], flags[1]))
        events = [Event("auto_move", {"player": player, "on": on})]
        if on and st.phase == "moving" and st.turn == who:
            return _after_roll(st, events)
        return st, events
    handler = _HANDLERS.get(name)
    if handler is None:
        raise Rejected("invalid_argument", f"unknown action {name!r}")
    if state.phase in ("idle", "game_over"):
        raise Rejected("failed_precondition", "no game is running")
    if state.actor != who:
        raise Rejected("failed_precondition", f"it is not {player}'s turn to act")
    return handler(state, who, action)


def _roll(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    if state.phase != "turn":
        raise Rejected("failed_precondition", "rolling is only allowed at the start of a turn")
    given = action.get("dice")
    if state.seed is not None:
        if given is not None:
            raise Rejected("permission_denied", "the dice of this game come from its seed")
        (a, b), st = _draw(state, 2)
    else:
        if (
            not isinstance(given, list | tuple)
            or len(given) != 2
            or not all(
                isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in given
            )
        ):
            raise Rejected("invalid_argument", "a roll without a seed needs 'dice': [d1, d2]")
        a, b = given
        st = state
    st = replace(st, phase="moving", dice=(a, b))
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
        raise Rejected("failed_precondition", "roll before moving")
    play = action.get("play")
    if not isinstance(play, str):
        raise Rejected("invalid_argument", "a move needs 'play': a string in gnubg notation")
    d1, d2 = state.dice
    try:
        after = match_play(state.board, d1, d2, play)
    except IllegalPlay as exc:
        raise Rejected("failed_precondition", str(exc)) from None
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
    st = replace(st, phase="turn", turn=1 - who, dice=None)
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
        raise Rejected("failed_precondition", why)
    st = replace(state, phase="doubled", doubler=who)
    return st, [Event("doubled", {"player": state.players[who], "to": state.cube * 2})]


def _take(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    if state.phase == "doubled":
        cube = state.cube * 2
    elif state.phase == "beavered":
        cube = state.cube * 4
    else:
        raise Rejected("failed_precondition", "no double to take")
    owner = 1 - state.turn  # the doubled player (or the beaverer) owns the cube
    st = replace(state, phase="turn", cube=cube, cube_owner=owner, doubler=None)
    return st, [Event("took", {"player": state.players[who], "cube": cube})]


def _drop(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    if state.phase == "doubled":
        # rule 16: the refuser pays the cube value before the offer
        return _end_game(state, state.turn, "single", state.cube, "drop", [])
    if state.phase == "beavered":
        # rule 21: refusing a beaver pays the cube value after the original double
        return _end_game(state, 1 - state.turn, "single", state.cube * 2, "drop", [])
    raise Rejected("failed_precondition", "no double to drop")


def _beaver(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    if not state.can_beaver():
        if state.phase != "doubled":
            why = "no double to beaver"
        elif state.options.mode != "single" or not state.options.beaver:
            why = "beavers are not allowed at this table"
        else:
            why = f"a beaver cannot take the cube above {MAX_CUBE}"
        raise Rejected("failed_precondition", why)
    st = replace(state, phase="beavered")
    return st, [Event("beavered", {"player": state.players[who], "to": state.cube * 4})]


def _resign(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    if state.phase not in ("turn", "moving"):
        raise Rejected("failed_precondition", "resign on your turn, before moving")
    level = action.get("level", "single")
    if level not in MULTIPLIER:
        raise Rejected("invalid_argument", "level is single, gammon or backgammon")
    st = replace(state, phase="resigning", resign_level=level, resume_phase=state.phase)
    return st, [Event("resignation_offered", {"player": state.players[who], "level": level})]


def _accept(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    if state.phase != "resigning" or state.resign_level is None:
        raise Rejected("failed_precondition", "no resignation to accept")
    return _end_game(state, who, state.resign_level, state.cube, "resign", [])


def _reject(state: State, who: int, action: JSON) -> tuple[State, list[Event]]:
    if state.phase != "resigning" or state.resume_phase is None:
        raise Rejected("failed_precondition", "no resignation to reject")
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
        more.append(Event("match_over", {"winner": st.players[1 - who], "forfeit": True}))
    return st, more


def _end_game(
    state: State, winner: int, result: str, cube: int, how: str, events: list[Event]
) -> tuple[State, list[Event]]:
    points = cube * MULTIPLIER[result]
    res = GameResult(winner=winner, result=result, cube=cube, points=points, how=how)
    st = replace(
        state,
        phase="game_over",
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
            "game_over",
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
                Event("match_over", {"winner": state.players[winner], "score": list(score)})
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


# --- what the host needs ---------------------------------------------------------------


def legal_actions(state: State, player: str) -> JSON:
    """What `player` may do now, in conformance notation."""
    who = state.index(player)
    if state.actor != who:
        return {"actions": []}
    actions: list[str] = []
    out: JSON = {}
    if state.phase == "turn":
        actions = ["roll", "resign"]
        if state.can_double(who):
            actions.insert(1, "double")
    elif state.phase == "moving":
        actions = ["move", "resign"]
        assert state.dice is not None
        plays = legal_plays(state.board, *state.dice)
        out["dice"] = list(state.dice)
        out["plays"] = sorted(p.notation for p in plays) if plays else [""]
    elif state.phase == "doubled":
        actions = ["take", "drop"] + (["beaver"] if state.can_beaver() else [])
    elif state.phase == "beavered":
        actions = ["take", "drop"]
    elif state.phase == "resigning":
        actions = ["accept", "reject"]
        out["level"] = state.resign_level
    out["actions"] = actions
    return out


def timeout_action(state: State, player: str) -> JSON:
    """The automatic action when `player`'s clock runs out (OQ 5: they lose)."""
    state.index(player)
    return {"action": "timeout"}


def result_points(state: State) -> tuple[int, int] | None:
    """(winner, points) of the game that just ended, or None."""
    if state.last_result is None:
        return None
    return state.last_result.winner, state.last_result.points


def payout(state: State) -> int:
    """What the loser pays: single mode, the capped game payout; match mode, the series
    stake once the series is over; 0 while nothing is settled."""
    opts = state.options
    if opts.mode == "single":
        if state.last_result is None:
            return 0
        r = state.last_result
        return single_game_payout(opts.stake, r.cube, MULTIPLIER[r.result], opts.max_win)
    return opts.stake if state.match_winner is not None else 0


def settlement(state: State) -> tuple[int, int, Settlement] | None:
    """(winner, loser, money) once money moves: after a single game or at the series end."""
    if not state.complete:
        return None
    winner = state.match_winner if state.options.mode == "match" else None
    if winner is None:
        assert state.last_result is not None
        winner = state.last_result.winner
    return winner, 1 - winner, settle(payout(state), state.options.tournament)


def deltas(state: State) -> dict[str, int]:
    """Exact integer money deltas per player (sum = -commission), empty while unsettled."""
    s = settlement(state)
    if s is None:
        return {}
    winner, loser, money = s
    return {state.players[winner]: money.winner_delta, state.players[loser]: money.loser_delta}


def match_key(state: State) -> MatchKey:
    """The state as gnubg's Match ID fields (player 0 = players[0])."""
    if state.phase == "idle":
        game_state = GAME_NONE
    elif state.phase == "game_over":
        how = state.last_result.how if state.last_result else ""
        game_state = {"drop": GAME_DROP, "resign": GAME_RESIGNED}.get(how, GAME_OVER)
    else:
        game_state = GAME_PLAYING
    actor = state.actor
    return MatchKey(
        cube=state.cube,
        cube_owner=state.cube_owner,
        on_roll=state.turn,
        crawford=state.crawford_game,
        game_state=game_state,
        turn=state.turn if actor is None else actor,
        doubled=state.phase in ("doubled", "beavered"),
        resigned=MULTIPLIER[state.resign_level] if state.resign_level else 0,
        dice=state.dice or (0, 0),
        match_length=state.options.points if state.options.mode == "match" else 0,
        score=state.score,
    )


def public_view(state: State) -> JSON:
    """Everything about the table (backgammon hides nothing but the seed's future dice)."""
    actor = state.actor
    view: JSON = {
        "phase": state.phase,
        "players": list(state.players),
        "position_id": position_id(state.board),
        "match_id": match_id(match_key(state)),
        "on_roll": state.players[state.turn],
        "to_act": None if actor is None else state.players[actor],
        "dice": list(state.dice) if state.dice else None,
        "cube": state.cube,
        "cube_owner": None if state.cube_owner is None else state.players[state.cube_owner],
        "crawford": state.crawford_game,
        "game": state.game_number,
        "score": {state.players[0]: state.score[0], state.players[1]: state.score[1]},
    }
    if state.resign_level:
        view["resignation"] = state.resign_level
    if state.last_result:
        r = state.last_result
        view["last_result"] = {
            "winner": state.players[r.winner],
            "result": r.result,
            "cube": r.cube,
            "points": r.points,
            "how": r.how,
        }
    return view


def snapshot(state: State) -> JSON:
    """The whole state as JSON, seed included (host only)."""
    view = public_view(state)
    view["boards"] = [list(state.boards[0]), list(state.boards[1])]
    view["seed"] = state.seed.hex() if state.seed else None
    view["dice_drawn"] = state.dice_drawn
    view["auto_move"] = list(state.auto_move)
    view["options"] = {
        "mode": state.options.mode,
        "stake": state.options.stake,
        "max_win": state.options.max_win,
        "beaver": state.options.beaver,
        "points": state.options.points,
        "crawford": state.options.crawford,
        "tournament": state.options.tournament,
    }
    return view
