"""`croupier conformance` for points tournaments (docs/conformance.md, "Points tournament"):
the public examples through the same code, malformed documents, illegal actions."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from croupier.cli.conformance import decisive_keys, judge
from croupier.kit.scenario import MalformedScenario
from croupier.tournament.conformance import run_scenario
from tests.support import paths

PUBLIC = paths.PUBLIC / "tournament"
EXAMPLES = sorted(p for p in PUBLIC.glob("*.json") if not p.name.endswith(".expected.json"))
CROUPIER = Path(sys.executable).parent / "croupier"


def _load(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text())
    return loaded


def _doc(actions: list[Any], **options: Any) -> dict[str, Any]:
    return {
        "game": "tournament",
        "kind": "rummy_points",
        "players": ["ann", "bob", "cat"],
        "options": {
            "starting_chips": 100,
            "table_size": 3,
            "levels": [{"round_fee": 10, "chip_ratio": 2}],
            **options,
        },
        "actions": actions,
    }


START = {"action": "round_start", "round": "r1", "table": ["ann", "bob"]}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_public_example_replays_to_its_answer(path: Path) -> None:
    document = _load(path)
    answer = _load(path.with_name(path.stem + ".expected.json"))
    assert judge(document, run_scenario(document), answer) is None


def test_every_output_key_of_the_format_decides_a_tournament_scenario() -> None:
    path = PUBLIC / "v21-tied-points-share-prizes.json"
    document = _load(path)
    answer = _load(path.with_name(path.stem + ".expected.json"))
    keys = decisive_keys(document)
    assert set(keys) == {
        "status", "level", "chips", "points", "rebuys", "eliminated", "final_table",
        "ranking", "prizes",
    }  # fmt: skip
    out = run_scenario(document)
    for key in keys:
        wrong = copy.deepcopy(answer)
        wrong[key] = None if answer[key] is not None else []
        assert judge(document, out, wrong) is not None, key


def test_an_illegal_action_is_reported_with_the_state_just_before_it() -> None:
    end = {"action": "round_end", "round": "r1", "winner": "ann", "negative_points": {"bob": 2.5}}
    out = run_scenario(_doc([START, end]))
    assert out["error"]["action_index"] == 1
    assert out["error"]["code"] == "invalid_negative_points"
    assert out["chips"] == {"ann": 90, "bob": 90, "cat": 100}
    assert out["status"] == "running" and out["prizes"] is None


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"action": "deal"}, "unknown_action"),
        ({"action": "rebuy", "player": "ann"}, "no_rebuys"),
        ({"action": "round_end", "round": "r1", "winner": "ann", "negative_points": {}},
         "wrong_losers"),
        ({"action": "round_end", "round": "r1", "winner": "ann",
          "negative_points": {"bob": -1}}, "invalid_negative_points"),
        ({"action": "round_end", "round": "r1", "winner": "ann",
          "negative_points": {"bob": "5"}}, "invalid_negative_points"),
        ({"action": "round_start", "round": "r2", "table": ["ann", "cat"]}, "player_busy"),
        ({"action": "round_cancel", "round": "r7"}, "unknown_round"),
    ],
)  # fmt: skip
def test_refused_actions_are_illegal_actions_not_malformed_documents(
    action: dict[str, Any], code: str
) -> None:
    out = run_scenario(_doc([START, action]))
    assert out["error"]["action_index"] == 1 and out["error"]["code"] == code


@pytest.mark.parametrize(
    "change",
    [
        {"kind": "knockout"},
        {"players": "ann"},
        {"players": ["ann", 7]},
        {"players": ["ann"]},
        {"players": ["ann", "ann"]},
        {"actions": {}},
        {"actions": [7]},
        {"actions": [{"action": "round_start", "round": 1, "table": ["ann", "bob"]}]},
        {"actions": [{"action": "round_start", "round": "r1", "table": "ann"}]},
        {"actions": [{"action": "rebuy", "player": None}]},
        {"actions": [START, {"action": "round_end", "round": "r1", "winner": "ann",
                             "negative_points": [["bob", 1]]}]},
        {"options": None},
        {"options": {"starting_chips": 0, "table_size": 2, "levels": [{"round_fee": 0,
                                                                       "chip_ratio": 1}]}},
        {"options": {"starting_chips": 1.5, "table_size": 2, "levels": []}},
        {"options": {"starting_chips": 10, "table_size": 2, "levels": [{"round_fee": -1,
                                                                        "chip_ratio": 1}]}},
        {"options": {"starting_chips": 10, "table_size": 2, "levels": [{"round_fee": 1,
                                                                        "chip_ratio": 1}],
                     "winner_risk_limit": "yes"}},
        {"options": {"starting_chips": 10, "table_size": 2, "levels": [{"round_fee": 1,
                                                                        "chip_ratio": 1}],
                     "prizes": [10, 1e3]}},
    ],
)  # fmt: skip
def test_a_document_of_the_wrong_shape_is_malformed(change: dict[str, Any]) -> None:
    document = {**_doc([START]), **change}
    with pytest.raises(MalformedScenario):
        run_scenario(document)


def test_null_optional_options_mean_absent() -> None:
    out = run_scenario(_doc([START], rebuys=None, winner_risk_limit=None, prizes=None))
    assert out["error"] is None and out["chips"]["ann"] == 90


def test_the_command_exits_2_on_a_malformed_tournament_and_0_on_an_illegal_action(
    tmp_path: Path,
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**_doc([]), "players": ["ann", 7]}))
    completed = subprocess.run(
        [str(CROUPIER), "conformance", str(bad)], capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == 2 and "players" in completed.stderr
    illegal = tmp_path / "illegal.json"
    illegal.write_text(json.dumps(_doc([START, {"action": "deal"}])))
    completed = subprocess.run(
        [str(CROUPIER), "conformance", str(illegal)], capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == 0
    assert json.loads(completed.stdout)["error"]["action_index"] == 1
