"""What the host and the players see of a backgammon table (queries only).

Backgammon hides nothing but the future dice: the seed stays out of every view and only
`snapshot` (host only) carries it.
"""

from __future__ import annotations

from typing import Any

from croupier.backgammon.core.board import position_id
from croupier.backgammon.core.commission import Settlement, settle, single_game_payout
from croupier.backgammon.core.matchid import (
    GAME_DROP,
    GAME_NONE,
    GAME_OVER,
    GAME_PLAYING,
    GAME_RESIGNED,
    MatchKey,
    match_id,
)
from croupier.backgammon.core.moves import legal_plays
from croupier.backgammon.core.state import MULTIPLIER, State

__all__ = [
    "deltas",
    "legal_actions",
    "match_key",
    "payout",
    "public_view",
    "result_points",
    "settlement",
    "snapshot",
    "timeout_action",
]

JSON = dict[str, Any]


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
