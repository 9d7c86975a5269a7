"""Whole random games through the conformance replayer, every play checked against gnubg."""

from __future__ import annotations

import random
from typing import Any

import gnubg_nn

from croupier.backgammon.core.board import borne_off, position_id
from croupier.backgammon.core.game import Options, apply, new_table, start_game
from croupier.backgammon.core.moves import legal_plays
from croupier.backgammon.tools.conformance import run_scenario


def gnubg_ids(board: Any, d1: int, d2: int) -> set[str]:
    keys = gnubg_nn.moves([list(board[0]), list(board[1])], d1, d2)
    return {
        gnubg_nn.position_id([list(s) for s in gnubg_nn.board_from_position_key(k)]) for k in keys
    } or {position_id(board)}


def random_game(rng: random.Random, mode: str) -> tuple[dict[str, Any], Any]:
    """A random complete game (single) or match (to 3), cube actions included."""
    players = ["white", "black"]
    options = Options(mode=mode, stake=100, points=3, beaver=mode == "single")
    state = new_table(options, players)
    rolls: list[list[int]] = []
    actions: list[dict[str, Any]] = []

    def opening() -> None:
        nonlocal state
        while True:
            a, b = rng.randint(1, 6), rng.randint(1, 6)
            rolls.append([a, b])
            if a != b:
                break
        state, _ = start_game(state, opening=(a, b))

    opening()
    while True:
        if state.phase == "game_over":
            if mode == "single" or state.match_winner is not None:
                break
            opening()
        actor = state.players[state.actor] if state.actor is not None else None
        assert actor is not None
        if state.phase == "turn":
            if state.can_double(state.turn) and rng.random() < 0.05:
                action: dict[str, Any] = {"action": "double"}
            else:
                dice = [rng.randint(1, 6), rng.randint(1, 6)]
                rolls.append(dice)
                state, _ = apply(state, actor, {"action": "roll", "dice": dice})
                continue
        elif state.phase == "moving":
            assert state.dice is not None
            plays = legal_plays(state.board, *state.dice)
            allowed = gnubg_ids(state.board, *state.dice)
            assert ({position_id(p.board) for p in plays} or {position_id(state.board)}) == allowed
            action = {"action": "move", "play": rng.choice(plays).notation if plays else ""}
        elif state.phase == "doubled":
            action = {"action": rng.choice(["take", "take", "drop", "beaver"])}
            if action["action"] == "beaver" and not state.can_beaver():
                action = {"action": "take"}
        else:  # beavered
            action = {"action": rng.choice(["take", "drop"])}
        actions.append({"player": actor, **action})
        state, _ = apply(state, actor, action)
    document = {
        "game": "backgammon",
        "kind": "game",
        "mode": mode,
        "stake": 100,
        "points": 3,
        "beaver": mode == "single",
        "players": players,
        "rolls": rolls,
        "actions": actions,
    }
    return document, state


def test_random_single_games_replay_identically() -> None:
    rng = random.Random(42)
    for _ in range(15):
        document, state = random_game(rng, "single")
        out = run_scenario(document)
        assert out["error"] is None
        assert out["status"] == "complete"
        result = state.last_result
        assert result is not None
        assert out["winner"] == state.players[result.winner]
        assert (out["result"], out["cube"], out["points"]) == (
            result.result,
            result.cube,
            result.points,
        )
        assert out["payout"] == 100 * result.points
        if result.how == "bear_off":
            loser = state.boards[1 - result.winner]
            assert borne_off(state.boards[result.winner]) == 15
            expected = "single" if borne_off(loser) else "gammon"
            if expected == "gammon" and (loser[24] or any(loser[18:24])):
                expected = "backgammon"
            assert result.result == expected


def test_random_matches_replay_identically() -> None:
    rng = random.Random(7)
    for _ in range(4):
        document, state = random_game(rng, "match")
        out = run_scenario(document)
        assert out["error"] is None
        assert out["status"] == "complete"
        assert out["score"] == {"white": state.score[0], "black": state.score[1]}
        assert max(state.score) >= 3
        assert out["winner"] == state.players[state.score.index(max(state.score))]
        assert out["payout"] == 100
