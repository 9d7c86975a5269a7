"""Rule 12 / OQ 7: an abandoned game is settled from GNU Backgammon's evaluation.

For fixed positions the adapter's settlement (through `ENGINE.evaluate_abandonment`, i.e.
the gnubg bridge, then `UnseatPlayer` carrying its answer) must move exactly the amount
that gnubg's own 2-ply cubeful evaluation gives. The expected values are computed here
by a separate gnubg run that starts from the Position IDs (not from the engine's boards),
builds its own cube-infos, generates the candidate plays with `gnubg_nn` (not with the
engine's move generator) and evaluates every one of them; the commission is re-derived
from rules 39-42.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import gnubg_nn
import pytest

from croupier.backgammon.adapters.gnubg_bridge import gnubg_binary
from croupier.backgammon.core import game
from croupier.backgammon.core.board import board_from_position_id
from croupier.backgammon.core.state import Phase
from croupier.backgammon.core.table import BackgammonTable
from croupier.backgammon.engine import ENGINE
from croupier.game import RuleBroken, UnseatPlayer
from tests.support.paths import ROOT
from tests.support.refusals import status_name

pytestmark = pytest.mark.timeout(120)

PLAYERS = ("ann", "bob")

# The independent reference: one gnubg run, job by job (2-ply cubeful, no Jacoby).
REFERENCE = r"""
import json, os, gnubg
ctx = gnubg.evalcontext(1, 2, 1, 1, 0.0)
out = []
for job in json.load(open(os.environ["REFERENCE_JOBS"])):
    ci = gnubg.cubeinfo(job["cube"], job["owner"], job["move"], job["matchto"],
                        tuple(job["score"]), job.get("crawford", 0), 0)
    ci["jacoby"] = 0
    if "boards" in job:  # opponent on roll after each candidate play
        rows = [gnubg.cfevaluate((tuple(b[0]), tuple(b[1])), ci, ctx) for b in job["boards"]]
    else:
        rows = [gnubg.cfevaluate(gnubg.positionfromid(job["pid"]), ci, ctx)]
    mwc = [[gnubg.eq2mwc(x, ci) for x in r[:4]] for r in rows] if job["matchto"] else None
    out.append({"rows": [list(r[:4]) for r in rows], "mwc": mwc})
print("REFERENCE " + json.dumps(out))
"""


def reference(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "ref.py").write_text(REFERENCE)
        Path(folder, "jobs.json").write_text(json.dumps(jobs))
        env = {**os.environ, "REFERENCE_JOBS": str(Path(folder, "jobs.json")), "HOME": folder}
        done = subprocess.run(
            [gnubg_binary(), "-t", "-q", "-r", "-p", "ref.py"],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=100,
            check=False,
        )
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("REFERENCE ")]
    answers: list[dict[str, Any]] = json.loads(line.removeprefix("REFERENCE "))
    return answers


def table_at(
    pid: str,
    *,
    phase: Phase = Phase.TURN,
    cube: int = 1,
    owner: int | None = None,
    dice: tuple[int, int] | None = None,
    crawford_at: tuple[int, int] | None = None,
    **options: Any,
) -> BackgammonTable:
    """ann (players[0]) on roll in the position `pid` (gnubg Position ID, ann's view)."""
    opts = game.Options(**{"mode": "single", "stake": 100, **options})
    board = board_from_position_id(pid)  # (bob's side, ann's side)
    g = replace(
        game.new_table(opts, PLAYERS),
        phase=phase,
        boards=(board[1], board[0]),
        turn=0,
        cube=cube,
        cube_owner=owner,
        dice=dice,
        doubler=0 if phase in (Phase.DOUBLED, Phase.BEAVERED) else None,
        game_number=1,
        score=(3, 5) if opts.mode == "match" else (0, 0),
    )
    if opts.mode == "match" and crawford_at is not None:
        g = replace(g, score=crawford_at, crawford_game=True, crawford_used=True)
    return BackgammonTable(options=opts, seats=PLAYERS, game=g, games_started=1, currency="USD")


def commission_rule(amount: int) -> int:
    """Rules 40-42 in cents: 3 cents per player below $0.50, else 6.5 % rounded up; x 2."""
    if amount == 0:
        return 0
    per_player = 3 if amount < 50 else -(-amount * 65 // 1000)
    return min(2 * per_player, amount)


def expected_deltas(equity_ann: float, stake: int, cube: int, cap: int | None) -> dict[str, int]:
    amount = int((abs(Decimal(repr(equity_ann))) * stake * cube).quantize(0, ROUND_HALF_UP))
    if cap is not None:
        amount = min(amount, cap)
    if amount == 0:
        return {"ann": 0, "bob": 0}
    winner, loser = ("ann", "bob") if equity_ann > 0 else ("bob", "ann")
    return {winner: amount - commission_rule(amount), loser: -amount}


async def settle(table: BackgammonTable, leaver: str) -> tuple[dict[str, Any], dict[str, int]]:
    evaluation = await ENGINE.evaluate_abandonment(table, leaver)
    assert evaluation is not None
    left, events = ENGINE.apply(table, UnseatPlayer(leaver, evaluation))
    assert [e.type for e in events] == ["game_abandoned", "player_left"]
    assert left.seats == tuple(p for p in PLAYERS if p != leaver)
    result = ENGINE.result(left)
    assert result is not None
    assert sum(result.deltas.values()) == -sum(result.commission.values())
    return evaluation, dict(result.deltas)


def money_job(pid: str, cube: int, owner: int) -> dict[str, Any]:
    return {"pid": pid, "cube": cube, "owner": owner, "move": 0, "matchto": 0, "score": [0, 0]}


# Positions (ann on roll) from a seeded random game, with gnubg 2-ply values of
# about +0.90 (double/take), -0.59, +1.05 (too good), +0.53.
DOUBLE_TAKE = "qfgAmTDEJ3QBHA"
BEHIND = "M2aAmSHgT2SAHA"
TOO_GOOD = "xB8kwgUzZsBmAg"
AHEAD = "Up/gASjg88gAUg"


async def test_rule_12_money_settlements_match_gnubg_2ply_cubeful_equity() -> None:
    def candidates(pid: str, d1: int, d2: int) -> list[list[list[int]]]:
        board = gnubg_nn.board_from_position_id(pid)  # [bob's side, ann's side]
        keys = gnubg_nn.moves(board, d1, d2)
        # after ann's play bob is on roll: bob's board is (ann's side, bob's side)
        return [[list(a), list(b)] for b, a in (gnubg_nn.boardfromkey(k) for k in keys)]

    boards_64 = candidates(AHEAD, 6, 4)
    assert len(boards_64) > 5
    ref = reference(
        [
            money_job(DOUBLE_TAKE, 1, -1),  # ann may double
            money_job(BEHIND, 2, 1),  # bob owns the cube at 2: ann may not double
            money_job(TOO_GOOD, 4, 0),  # ann owns it at 4
            {**money_job("", 1, -1), "boards": boards_64, "move": 1},  # bob, cube centred
            money_job(BEHIND, 1, -1),  # ann doubles from here (a bad double)
        ]
    )
    optimal = [r["rows"][0][0] for r in ref]

    # 1. centred cube, ann may double: her equity is gnubg's optimal; bob left.
    evaluation, deltas = await settle(table_at(DOUBLE_TAKE), "bob")
    assert evaluation["player"] == "ann" and float(evaluation["equity"]) == optimal[0]
    assert deltas == expected_deltas(optimal[0], 100, 1, None)
    assert deltas["ann"] > 0

    # 2. ann leaves; bob (connected) owns the cube at 2; bob's equity is -ann's no-double.
    table = table_at(BEHIND, cube=2, owner=1, stake=250)
    evaluation, deltas = await settle(table, "ann")
    no_double = ref[1]["rows"][0][1]
    assert float(evaluation["equity"]) == -no_double
    assert deltas == expected_deltas(no_double, 250, 2, None)
    assert deltas["bob"] > 0

    # 3. cube 4 owned by ann, E > 1: |E| x $1 x 4 > $4, capped at $3 (OQ 13).
    evaluation, deltas = await settle(table_at(TOO_GOOD, cube=4, owner=0, max_win=300), "bob")
    assert optimal[2] > 0.75
    assert deltas == expected_deltas(optimal[2], 100, 4, 300) == {"ann": 300 - 40, "bob": -300}

    # 4. ann has rolled 6-4: her best play, i.e. the most of minus bob's optimal equity
    #    over every legal play (gnubg_nn's list), each evaluated at 2-ply.
    table = table_at(AHEAD, phase=Phase.MOVING, dice=(6, 4), stake=1000)
    evaluation, deltas = await settle(table, "bob")
    best = max(-row[0] for row in ref[3]["rows"])
    assert float(evaluation["equity"]) == best
    assert deltas == expected_deltas(best, 1000, 1, None)

    # 5. ann doubled on a beaver table; bob (to answer) left. Bob would beaver (ann's
    #    take equity is below 0), and ann would rather drop the beaver (-2) than play
    #    on at 4: min(take, drop = 1, max(2 x take, -2)).
    table = table_at(BEHIND, phase=Phase.DOUBLED, beaver=True)
    evaluation, deltas = await settle(table, "bob")
    take = ref[4]["rows"][0][2]
    ann = min(take, 1.0, max(2 * take, -2.0))
    assert float(evaluation["equity"]) == ann
    assert deltas == expected_deltas(ann, 100, 1, None)
    assert deltas["bob"] > 0


async def test_oq_12_beavered_and_resigning_positions_are_valued_from_gnubg() -> None:
    (behind,) = reference([money_job(BEHIND, 1, -1)])
    optimal, _, take, _ = behind["rows"][0]

    # ann doubled, bob beavered; ann (to answer) left: bob gets the better of ann
    # dropping the beaver (2 cubes) and ann playing on at 4: max(2 x take, -2) for ann.
    table = table_at(BEHIND, phase=Phase.BEAVERED, beaver=True)
    evaluation, deltas = await settle(table, "ann")
    ann = max(2 * take, -2.0)
    assert float(evaluation["equity"]) == -ann
    assert deltas == expected_deltas(ann, 100, 1, None)

    # ann offered to resign a single game; bob (to decide) left. Bob would accept
    # (1 cube) unless playing on is worth more to him (-ann's optimal equity).
    table = table_at(BEHIND, phase=Phase.RESIGNING)
    assert table.game is not None
    g = replace(table.game, resign_level="single", resume_phase=Phase.TURN)
    evaluation, deltas = await settle(replace(table, game=g), "bob")
    ann = -max(1.0, -optimal)
    assert float(evaluation["equity"]) == ann
    assert deltas == expected_deltas(ann, 100, 1, None)


async def test_oq_7_series_abandonment_splits_the_stake_by_match_winning_chance() -> None:
    """7-point series at 3-5, ann on roll: ann's MWC p from gnubg; 2p - 1 of the stake."""
    ref = reference(
        [{"pid": BEHIND, "cube": 1, "owner": -1, "move": 0, "matchto": 7, "score": [3, 5]}]
    )
    mwc = ref[0]["mwc"][0][0]  # optimal, as a match winning chance
    assert ref[0]["rows"][0][0] < 0  # no double: the value depends on the depth
    table = table_at(BEHIND, mode="match", points=7, stake=1000)
    evaluation, deltas = await settle(table, "ann")
    assert evaluation["player"] == "bob" and float(evaluation["mwc"]) == 1 - mwc
    share = 2 * Decimal(repr(1 - mwc)) - 1  # bob's share of the stake
    amount = int((abs(share) * 1000).quantize(0, ROUND_HALF_UP))
    winner, loser = ("bob", "ann") if share > 0 else ("ann", "bob")
    assert deltas == {winner: amount - commission_rule(amount), loser: -amount}


def pre_crawford_met(points: int) -> list[list[float]]:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "met.py").write_text(
            f"import gnubg, json\nprint('MET ' + json.dumps(gnubg.met({points})[0]))\n"
        )
        done = subprocess.run(
            [gnubg_binary(), "-t", "-q", "-r", "-p", "met.py"],
            cwd=folder,
            env={**os.environ, "HOME": folder},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("MET ")]
    table: list[list[float]] = json.loads(line.removeprefix("MET "))
    return table


async def test_oq_10_a_crawford_game_is_evaluated_as_one() -> None:
    """5-point series, bob at 4 (Crawford game), ann at 2 on roll: no cube this game."""
    job = {"pid": DOUBLE_TAKE, "cube": 1, "owner": -1, "move": 0, "matchto": 5}
    crawford, plain = reference([{**job, "score": [2, 4], "crawford": 1}, {**job, "score": [2, 4]}])
    table = table_at(DOUBLE_TAKE, mode="match", points=5, stake=400, crawford_at=(2, 4))
    evaluation, _ = await settle(table, "bob")
    assert float(evaluation["mwc"]) == crawford["mwc"][0][0] != plain["mwc"][0][0]


async def test_oq_7_between_two_games_of_a_series_the_match_equity_table_decides() -> None:
    """7-point series at 3-5, the next game not started: gnubg's MET entry for ann
    needing 4 and bob needing 2 (a separate gnubg run prints the table)."""
    ann_chance = pre_crawford_met(7)[4 - 1][2 - 1]
    table = table_at(AHEAD, mode="match", points=7, stake=1000)
    assert table.game is not None
    table = replace(table, game=replace(table.game, phase=Phase.GAME_OVER))
    evaluation, deltas = await settle(table, "bob")
    assert float(evaluation["mwc"]) == ann_chance < 0.5
    share = 2 * Decimal(repr(ann_chance)) - 1
    amount = int((abs(share) * 1000).quantize(0, ROUND_HALF_UP))
    assert deltas == {"bob": amount - commission_rule(amount), "ann": -amount}


async def test_rule_12_evaluation_must_be_of_this_position_and_is_required() -> None:
    table = table_at(DOUBLE_TAKE)
    evaluation = await ENGINE.evaluate_abandonment(table, "bob")
    assert evaluation is not None
    other = table_at(AHEAD)
    with pytest.raises(RuleBroken) as stale:
        ENGINE.apply(other, UnseatPlayer("bob", evaluation))
    assert status_name(stale.value) == "failed_precondition"
    with pytest.raises(RuleBroken) as missing:
        ENGINE.apply(table, UnseatPlayer("bob"))
    assert "evaluation" in missing.value.message
    with pytest.raises(RuleBroken):  # evaluated for the wrong player
        ENGINE.apply(table, UnseatPlayer("ann", evaluation))
    # Deterministic replay: the same command gives the same state.
    once, _ = ENGINE.apply(table, UnseatPlayer("bob", evaluation))
    twice, _ = ENGINE.apply(table, UnseatPlayer("bob", evaluation))
    assert ENGINE.snapshot(once) == ENGINE.snapshot(twice)
    assert ENGINE.result(once) == ENGINE.result(twice)


async def test_nothing_to_evaluate_between_single_games_or_before_any() -> None:
    empty = ENGINE.open({"mode": "single", "stake": 100})
    assert await ENGINE.evaluate_abandonment(empty, "ann") is None
    over = table_at(DOUBLE_TAKE)
    assert over.game is not None
    finished = replace(over, game=replace(over.game, phase=Phase.GAME_OVER))
    assert await ENGINE.evaluate_abandonment(finished, "bob") is None
    left, events = ENGINE.apply(finished, UnseatPlayer("bob"))
    assert [e.type for e in events] == ["player_left"] and left.seats == ("ann",)


def test_the_table_image_installs_the_gnubg_the_bridge_runs() -> None:
    """The settlement needs the gnubg program (gnubg-nn is cubeless): the table image
    installs Debian's package and names its binary, which is outside PATH."""
    dockerfile = ROOT / "deploy" / "docker" / "Dockerfile"
    runtime = dockerfile.read_text().split("FROM ${PYTHON_IMAGE}\n")[-1]
    assert 'if [ "${SERVICE}" = "table" ]' in runtime
    assert "apt-get install -y --no-install-recommends gnubg=" in runtime
    assert "CROUPIER_GNUBG=/usr/games/gnubg" in runtime


def test_gnubg_nn_has_no_cubeful_money_evaluation() -> None:
    """Why the bridge runs the gnubg program: gnubg-nn's only cube evaluation refuses money
    play and takes no cube value, owner or score."""
    board = gnubg_nn.board_from_position_id("4HPwATDgc/ABMA")
    with pytest.raises(RuntimeError, match="Not implemented for money"):
        gnubg_nn.evaluate_cube_decision(board, 2, 1)
