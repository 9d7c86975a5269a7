"""GNU Backgammon's evaluation of an abandoned game (seed 001 ¶9, rule 12, OQ 7).

When a disconnected player does not come back within the reconnection window, the game
is settled from an evaluation of its position: in a single (money) game the connected
player's cubeful money equity E, in units of stake x cube; in a series their match
winning chance. The pure engine never calls gnubg: the host asks this module (through
`BackgammonEngine.evaluate_abandonment`) *before* logging the `UnseatPlayer` command and
stores the answer in the command's body, so replaying the log never re-evaluates.

How it runs: Debian's `gnubg` (1.07) executes a small Python script non-interactively
(`gnubg -t -q -r -p script.py`) whose `gnubg` module offers `cfevaluate` (cubeful
evaluation with a cube-info), `eq2mwc` and `met`. One process per evaluation (~0.2 s to
start). PyPI's `gnubg-nn` has no cubeful evaluation, so it is not used here.

Depth: **2-ply, cubeful, pruning nets on, no noise** (`evalcontext(1, 2, 1, 1, 0.0)`),
which is GNU Backgammon's own "world class" analysis level: it is the standard used to
judge play in gnubg's analysis, costs about 70 ms per position here (3-ply: ~0.8 s, too
slow for a move with dozens of candidate plays), and its error against rollouts is
small next to the money at stake. Settlement happens once per abandoned game, so the
cost is irrelevant; what matters is that the number is gnubg's standard one and is
reproducible (deterministic evaluation, no noise).

What is evaluated, by phase (R = the player on roll, O = the other one):

- `turn` (R may double, then rolls): gnubg's optimal cubeful equity for R
  (`nodouble` when R may not double: cube owned by O, Crawford game, or the 64 cap).
- `moving` (R has rolled): R's best play. Every distinct legal resulting position
  (from the engine's move generator) is evaluated at 0-ply; those within 0.16 of the best
  (at most 8, gnubg's "world class" move filter) are evaluated again at 2-ply, with O on
  roll; R's value is the best of minus O's cubeful equity.
- `doubled` (O must answer R's double): O picks the answer worst for R:
  min(take, drop = +1), and with beavers allowed also max(2 x take, -2) (O beavers; R then
  takes the beaver or drops it for 2 cubes).
- `beavered` (R answers O's beaver): max(2 x take, -2).
- `resigning` (O decides on R's resignation): O's value is the better of accepting
  (level x cube) and playing on from the phase the resignation interrupted.
- between two games of a series: gnubg's match equity table at the score.

Money equities are in units of stake x the state's cube (doubled phases can reach 6 or
12 of them); series values are the connected player's match winning chance (MWC),
which the adapter turns into a share of the series stake: E = 2 x MWC - 1.
Gammons count, Jacoby off (OQ 11), beavers as the table allows (rule 19).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from croupier.backgammon.core.board import Board, position_id
from croupier.backgammon.core.commission import MAX_CUBE
from croupier.backgammon.core.matchid import match_id
from croupier.backgammon.core.moves import legal_positions
from croupier.backgammon.core.state import MULTIPLIER, State
from croupier.backgammon.core.views import match_key

__all__ = [
    "EVALUATOR",
    "PLIES",
    "GnubgError",
    "abandonment_jobs",
    "evaluate_abandonment",
    "gnubg_binary",
    "run_gnubg",
]

JSON = dict[str, Any]

PLIES = 2
FILTER_KEEP = 8  # gnubg's "world class" move filter: 0-ply, keep 8 within 0.16
FILTER_WITHIN = 0.16
EVALUATOR = f"gnubg {PLIES}-ply cubeful"
TIMEOUT_SECONDS = 120.0
RESULT_MARK = "CROUPIER-GNUBG-RESULT "

# Runs inside gnubg (its embedded Python): evaluation primitives, no game logic.
SCRIPT = r"""
import json, os, gnubg

def ctx(plies):
    # cubeful, plies, deterministic, prune, noise
    return gnubg.evalcontext(1, plies, 1, 1, 0.0)

def cube_info(job):
    ci = gnubg.cubeinfo(job["cube"], job["owner"], job["move"], job["matchto"],
                        tuple(job["score"]), job["crawford"], 0)
    ci["jacoby"] = 0
    ci["beavers"] = job["beavers"]
    return ci

def board_of(raw):
    return (tuple(raw[0]), tuple(raw[1]))

def values(board, ci, plies):
    r = gnubg.cfevaluate(board, ci, ctx(plies))
    out = {"optimal": r[0], "nodouble": r[1], "take": r[2], "drop": r[3], "text": r[5]}
    if ci["matchto"]:
        for key in ("optimal", "nodouble", "take", "drop"):
            out["mwc_" + key] = gnubg.eq2mwc(out[key], ci)
    return out

def run(job):
    kind = job["kind"]
    if kind == "cube":
        return values(board_of(job["board"]), cube_info(job), job["plies"])
    if kind == "best":
        ci = cube_info(job)
        key = job["key"]
        boards = [board_of(b) for b in job["boards"]]
        first = [values(b, ci, 0)[key] for b in boards]
        best = min(first)  # the opponent's equity: the mover wants it lowest
        ranked = sorted(range(len(boards)), key=lambda i: first[i])
        keep = [i for i in ranked if first[i] <= best + job["within"]][: job["keep"]]
        deep = {i: values(boards[i], ci, job["plies"]) for i in keep}
        chosen = min(keep, key=lambda i: deep[i][key])
        return {"index": chosen, "considered": keep, **deep[chosen]}
    if kind == "met":
        return {"met": gnubg.met(job["size"])}
    if kind == "id":
        return {"position_id": gnubg.positionid(board_of(job["board"]))}
    raise ValueError("unknown job " + kind)

with open(os.environ["CROUPIER_GNUBG_REQUEST"]) as handle:
    jobs = json.load(handle)
print("CROUPIER-GNUBG-RESULT " + json.dumps([run(job) for job in jobs]))
"""


class GnubgError(RuntimeError):
    """gnubg is missing, failed, or answered something unreadable."""


def gnubg_binary() -> str:
    """Debian installs gnubg in its games directory, which may not be on PATH."""
    found = os.environ.get("CROUPIER_GNUBG") or shutil.which("gnubg")
    if found:
        return found
    if Path("/usr/games/gnubg").exists():
        return "/usr/games/gnubg"
    raise GnubgError("gnubg is not installed (deploy/local/gnubg.sh ensure)")


def _write_request(folder: str, jobs: list[JSON]) -> tuple[Path, Path]:
    script = Path(folder, "evaluate.py")
    script.write_text(SCRIPT)
    request = Path(folder, "request.json")
    request.write_text(json.dumps(jobs))
    return script, request


async def run_gnubg(jobs: list[JSON]) -> list[JSON]:
    """Run evaluation jobs in one gnubg process; their answers in order."""
    binary = gnubg_binary()
    with tempfile.TemporaryDirectory(prefix="croupier-gnubg-") as folder:
        script, request = _write_request(folder, jobs)
        env = {**os.environ, "CROUPIER_GNUBG_REQUEST": str(request), "HOME": folder}
        process = await asyncio.create_subprocess_exec(
            binary,
            "-t",
            "-q",
            "-r",
            "-p",
            str(script),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=folder,
        )
        try:
            out, err = await asyncio.wait_for(process.communicate(), TIMEOUT_SECONDS)
        except TimeoutError:
            process.kill()
            await process.wait()
            raise GnubgError(f"gnubg took more than {TIMEOUT_SECONDS:.0f} s") from None
    for line in out.decode(errors="replace").splitlines():
        if line.startswith(RESULT_MARK):
            answers = json.loads(line[len(RESULT_MARK) :])
            if not isinstance(answers, list) or len(answers) != len(jobs):
                raise GnubgError("gnubg answered a different number of jobs")
            return answers
    tail = err.decode(errors="replace").strip().splitlines()[-5:]
    raise GnubgError(f"gnubg gave no result (exit {process.returncode}): {' | '.join(tail)}")


# ---- what to ask gnubg --------------------------------------------------------------


def _raw(board: Board) -> list[list[int]]:
    return [list(board[0]), list(board[1])]


def _cube_job(state: State, board: Board, move: int, *, cube: int, owner: int | None) -> JSON:
    opts = state.options
    series = opts.mode == "match"
    return {
        "cube": cube,
        "owner": -1 if owner is None else owner,
        "move": move,
        "matchto": opts.points if series else 0,
        "score": list(state.score) if series else [0, 0],
        "crawford": int(series and state.crawford_game),
        "beavers": int(opts.mode == "single" and opts.beaver),
        "board": _raw(board),
        "plies": PLIES,
    }


def _may_double(state: State, player: int) -> bool:
    """Whether `player`, on roll before rolling, could double (gnubg knows no 64 cap)."""
    owner_ok = state.cube_owner is None or state.cube_owner == player
    crawford = state.options.mode == "match" and state.crawford_game
    return owner_ok and state.cube * 2 <= MAX_CUBE and not crawford


def abandonment_jobs(state: State, phase: str) -> list[JSON]:
    """The gnubg jobs that value `phase` of `state` for the player on roll."""
    r, o = state.turn, 1 - state.turn
    series = state.options.mode == "match"
    if phase == "game_over":
        return [{"kind": "met", "size": state.options.points}]
    if phase == "moving":
        assert state.dice is not None
        after = legal_positions(state.board, *state.dice)
        # After R's play, O is on roll: O's board is (R's side, O's side).
        boards = [_raw((b[1], b[0])) for b in after]
        job = _cube_job(state, state.board, o, cube=state.cube, owner=state.cube_owner)
        job.update(
            kind="best",
            boards=boards,
            keep=FILTER_KEEP,
            within=FILTER_WITHIN,
            key=("mwc_" if series else "") + ("optimal" if _may_double(state, o) else "nodouble"),
        )
        del job["board"]
        return [job]
    job = _cube_job(state, state.board, r, cube=state.cube, owner=state.cube_owner)
    job["kind"] = "cube"
    return [job]


def _met_mwc(state: State, met: Any, player: int, score: tuple[int, int]) -> float:
    """`player`'s match winning chance before a game at `score` (gnubg's MET)."""
    points = state.options.points
    away = [points - score[0], points - score[1]]
    if away[player] <= 0:
        return 1.0
    if away[1 - player] <= 0:
        return 0.0
    pre, post = met[0], met[1:]
    if 1 in away and (not state.options.crawford or state.crawford_used):
        # Post-Crawford: gnubg's post-Crawford row of the trailer (the other is 1-away).
        if away == [1, 1]:
            return 0.5
        trailer = 0 if away[0] > 1 else 1
        chance = float(post[trailer][away[trailer] - 1])
        return chance if player == trailer else 1.0 - chance
    chance0 = float(pre[away[0] - 1][away[1] - 1])
    return chance0 if player == 0 else 1.0 - chance0


def _value_for_on_roll(state: State, phase: str, answers: list[JSON]) -> float:
    """The on-roll player's value (money: cube units; series: MWC) of `phase`."""
    series = state.options.mode == "match"
    (answer,) = answers
    prefix = "mwc_" if series else ""
    if phase == "turn":
        key = "optimal" if _may_double(state, state.turn) else "nodouble"
        return float(answer[prefix + key])
    if phase == "moving":
        key = "optimal" if _may_double(state, 1 - state.turn) else "nodouble"
        opponent = float(answer[prefix + key])
        return 1.0 - opponent if series else -opponent
    take, drop = float(answer[prefix + "take"]), float(answer[prefix + "drop"])
    if phase == "doubled":
        if series:
            return min(take, drop)
        choices = [take, 1.0]
        if state.can_beaver():
            choices.append(max(2 * take, -2.0))
        return min(choices)
    if phase == "beavered":
        return max(2 * take, -2.0)
    raise ValueError(f"no evaluation for phase {phase!r}")


async def _on_roll_value(state: State, phase: str) -> float:
    return _value_for_on_roll(state, phase, await run_gnubg(abandonment_jobs(state, phase)))


def _describe(state: State) -> JSON:
    return {
        "position_id": position_id(state.board),
        "match_id": match_id(match_key(state)),
        "phase": str(state.phase),
    }


async def evaluate_abandonment(state: State, leaver: str) -> JSON | None:
    """The evaluation to log with `UnseatPlayer(leaver)`, or None when nothing is at stake.

    Nothing is at stake when no game runs (or the single game / series is complete).
    The answer names the connected player and their value: `equity` (money, units of
    stake x the state's cube) or `mwc` (series), as text (shortest float repr).
    """
    if state.phase == "idle" or state.complete:
        return None
    leaving = state.index(leaver)
    connected = 1 - leaving
    series = state.options.mode == "match"
    described = _describe(state)
    evaluation: JSON = {
        "evaluator": EVALUATOR,
        "player": state.players[connected],
        **described,
    }
    if state.phase == "game_over":  # between two games of a series
        (answer,) = await run_gnubg(abandonment_jobs(state, "game_over"))
        chance = _met_mwc(state, answer["met"], connected, state.score)
        evaluation["mwc"] = repr(chance)
        return evaluation
    phase = str(state.phase)
    if phase == "resigning":
        assert state.resume_phase is not None and state.resign_level is not None
        resume = str(state.resume_phase)
        on_roll = await _on_roll_value(state, resume)
        # The decider (not on roll) may accept the resignation instead of playing on.
        decider = 1 - state.turn
        points = MULTIPLIER[state.resign_level] * state.cube
        if series:
            score = list(state.score)
            score[decider] += points
            (met,) = await run_gnubg([{"kind": "met", "size": state.options.points}])
            accept = _met_mwc(state, met["met"], decider, (score[0], score[1]))
            decider_value = max(accept, 1.0 - on_roll)
            value_on_roll = 1.0 - decider_value
        else:
            decider_value = max(float(MULTIPLIER[state.resign_level]), -on_roll)
            value_on_roll = -decider_value
    else:
        value_on_roll = await _on_roll_value(state, phase)
    if connected == state.turn:
        value = value_on_roll
    else:
        value = 1.0 - value_on_roll if series else -value_on_roll
    evaluation["mwc" if series else "equity"] = repr(value)
    return evaluation
