"""`run_scenario` for backgammon documents (docs/conformance.md, backgammon).

Kinds:
- `legal_moves`: `position` (Position ID, mover on roll) and `dice` -> the sorted distinct
  Position IDs the legal plays lead to (mover still on roll); the position itself when no
  checker can move. Adds `plays`: Position ID -> canonical gnubg notation.
- `game`: a single game or a whole match replayed from explicit rolls. `rolls[0]` is the
  opening roll (players[0]'s die, players[1]'s die); each later roll is used by one `move`
  of the player on roll, so the replayer rolls for the player on turn when a `move` comes;
  in match mode each new game takes the next roll as its opening roll.
"""

from __future__ import annotations

from typing import Any

from croupier.backgammon.core.board import InvalidPosition, board_from_position_id, position_id
from croupier.backgammon.core.game import (
    Options,
    State,
    apply,
    match_key,
    new_table,
    payout,
    settlement,
    start_game,
)
from croupier.backgammon.core.matchid import match_id
from croupier.backgammon.core.moves import legal_plays, legal_positions
from croupier.game import Malformed, RuleBroken
from croupier.kit.errors import status_of
from croupier.kit.scenario import MalformedScenario

__all__ = ["run_scenario"]

JSON = dict[str, Any]


def run_scenario(document: JSON) -> JSON:
    kind = document.get("kind")
    if kind is None:
        kind = "legal_moves" if "position" in document else "game"
    if kind == "legal_moves":
        return _legal_moves(document)
    if kind == "game":
        return _game(document)
    raise MalformedScenario(f"unknown backgammon kind {kind!r}; expected legal_moves or game")


def _die_pair(value: object, what: str) -> tuple[int, int]:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in value)
    ):
        raise MalformedScenario(f"{what} must be two dice 1..6, got {value!r}")
    return value[0], value[1]


def _legal_moves(document: JSON) -> JSON:
    pid = document.get("position")
    if not isinstance(pid, str):
        raise MalformedScenario("legal_moves needs 'position': a Position ID")
    try:
        board = board_from_position_id(pid)
    except InvalidPosition as exc:
        raise MalformedScenario(str(exc)) from exc
    d1, d2 = _die_pair(document.get("dice"), "dice")
    positions = sorted(position_id(b) for b in legal_positions(board, d1, d2))
    plays = {position_id(p.board): p.notation for p in legal_plays(board, d1, d2)}
    return {"error": None, "positions": positions, "plays": plays}


def _int(document: JSON, key: str, default: int | None) -> int | None:
    value = document.get(key, default)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise MalformedScenario(f"{key!r} must be a non-negative integer")
    return value


def _game(document: JSON) -> JSON:
    mode = document.get("mode", "single")
    if mode not in ("single", "match"):
        raise MalformedScenario(f"mode must be 'single' or 'match', got {mode!r}")
    players = document.get("players")
    if (
        not isinstance(players, list)
        or len(players) != 2
        or not all(isinstance(p, str) for p in players)
        or players[0] == players[1]
    ):
        raise MalformedScenario("'players' must be two different names")
    rolls_in = document.get("rolls")
    if not isinstance(rolls_in, list):
        raise MalformedScenario("'rolls' must be a list of [d1, d2]")
    rolls = [_die_pair(r, f"rolls[{i}]") for i, r in enumerate(rolls_in)]
    actions = document.get("actions", [])
    if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
        raise MalformedScenario("'actions' must be a list of objects")
    stake = _int(document, "stake", 0)
    points = _int(document, "points", 0)
    if mode == "match" and not points:
        raise MalformedScenario("a match needs 'points' >= 1")
    beaver = document.get("beaver", False)
    crawford = document.get("crawford", True)
    if not isinstance(beaver, bool) or not isinstance(crawford, bool):
        raise MalformedScenario("'beaver' and 'crawford' are booleans")
    options = Options(
        mode=mode,
        stake=stake or 0,
        max_win=_int(document, "max_win", None),
        beaver=beaver and mode == "single",
        points=points or 0,
        crawford=crawford,
        tournament=bool(document.get("tournament", False)),
    )
    try:
        state = new_table(options, players)
    except RuleBroken as exc:
        raise MalformedScenario(exc.message) from exc

    cursor = 0

    def next_roll() -> tuple[int, int]:
        nonlocal cursor
        if cursor >= len(rolls):
            raise RuleBroken("no roll left in 'rolls'")
        roll = rolls[cursor]
        cursor += 1
        return roll

    def next_opening() -> tuple[int, int]:
        while True:
            roll = next_roll()
            if roll[0] != roll[1]:  # a tied opening throw is re-rolled
                return roll

    error: JSON | None = None
    if rolls:
        state, _ = start_game(state, opening=next_opening())
    for index, action in enumerate(actions):
        before = state
        try:
            player = action.get("player")
            if not isinstance(player, str):
                raise Malformed("an action needs a 'player'")
            if state.phase == "idle" or (
                state.phase == "game_over" and mode == "match" and state.match_winner is None
            ):
                state, _ = start_game(state, opening=next_opening())
            if (
                action.get("action") == "move"
                and state.phase == "turn"
                and player in state.players
                and state.actor == state.players.index(player)
            ):
                state, _ = apply(state, player, {"action": "roll", "dice": list(next_roll())})
            state, _ = apply(state, player, action)
        except RuleBroken as exc:
            state = before
            # The published examples name the refusal's status, e.g. "failed_precondition".
            status = status_of(exc)
            code = status.name.lower() if status else exc.reason
            error = {"action_index": index, "code": code, "message": exc.message}
            break
    return _output(state, error)


def _output(state: State, error: JSON | None) -> JSON:
    names = state.players
    last = state.last_result
    if state.options.mode == "match":
        winner = None if state.match_winner is None else names[state.match_winner]
    else:
        winner = None if last is None else names[last.winner]
    actor = state.actor
    out: JSON = {
        "status": "complete" if state.complete else "awaiting_action",
        "error": error,
        "winner": winner,
        "result": last.result if last else None,
        "cube": last.cube if last else state.cube,
        "cube_owner": None if state.cube_owner is None else names[state.cube_owner],
        "points": last.points if last else 0,
        "payout": payout(state),
        "to_act": None if actor is None else names[actor],
        "phase": state.phase,
        "position": position_id(state.board),
        "match_id": match_id(match_key(state)),
    }
    if state.options.mode == "match":
        out["score"] = {names[0]: state.score[0], names[1]: state.score[1]}
        out["games"] = state.game_number
    money = settlement(state)
    if money is not None:
        w, lo, m = money
        out["settlement"] = {
            "amount": m.amount,
            "commission": m.commission_total,
            "deltas": {names[w]: m.winner_delta, names[lo]: m.loser_delta},
        }
    return out
