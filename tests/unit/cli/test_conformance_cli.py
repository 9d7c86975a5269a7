"""`croupier conformance` exit codes: 0 when understood, 2 with one line when malformed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support import paths

CROUPIER = Path(sys.executable).parent / "croupier"


def run(tmp_path: Path, document: object) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document))
    return subprocess.run(
        [str(CROUPIER), "conformance", str(path)], capture_output=True, text=True, check=False
    )


def test_unknown_game_is_malformed(tmp_path: Path) -> None:
    completed = run(tmp_path, {"game": "chess"})
    assert completed.returncode == 2
    assert len(completed.stderr.strip().splitlines()) == 1
    assert "unknown game 'chess'" in completed.stderr


def test_a_value_of_the_wrong_shape_is_malformed_not_a_crash(tmp_path: Path) -> None:
    document = {
        "game": "poker",
        "variant": "nlhe",
        "blinds": [1, 2],
        "ante": 0,
        "players": [{"id": "p", "stack": 100}, {"id": "q", "stack": 100}],
        "button": "p",
        "hole_cards": {"p": 5, "q": ["As", "Ad"]},
        "deck": [],
        "actions": [],
    }
    completed = run(tmp_path, document)
    assert completed.returncode == 2, completed.stderr
    assert len(completed.stderr.strip().splitlines()) == 1


# ---- folders, answers beside scenarios, --check --------------------------------------

PUBLIC = paths.PUBLIC
EXAMPLE = "opening-position-3-1"  # a backgammon legal_moves example: fast to replay


def example_folder(tmp_path: Path) -> Path:
    """A folder holding one public scenario and its answer, as the public examples sit."""
    source = PUBLIC / "backgammon"
    for name in (f"{EXAMPLE}.json", f"{EXAMPLE}.expected.json"):
        (tmp_path / name).write_text((source / name).read_text())
    return tmp_path


def conformance(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CROUPIER), "conformance", *args], capture_output=True, text=True, check=False
    )


def test_a_folder_glob_replays_the_scenarios_and_leaves_out_the_answers(tmp_path: Path) -> None:
    """`croupier conformance poker/*.json` also matches X.expected.json: those are answers."""
    folder = example_folder(tmp_path)
    completed = conformance(*sorted(str(p) for p in folder.glob("*.json")))
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["positions"]  # one scenario: one result


def test_answers_alone_are_no_scenario(tmp_path: Path) -> None:
    completed = conformance(str(example_folder(tmp_path) / f"{EXAMPLE}.expected.json"))
    assert completed.returncode == 2
    assert "no scenario given" in completed.stderr and "--check" in completed.stderr


def test_help_documents_answers_and_check() -> None:
    completed = conformance("--help")
    assert "*.expected.json are answers" in completed.stdout
    assert "--check" in completed.stdout


def test_check_passes_a_folder_whose_answers_match(tmp_path: Path) -> None:
    completed = conformance("--check", str(example_folder(tmp_path)))
    assert completed.returncode == 0, completed.stdout
    assert completed.stdout.splitlines() == [
        f"PASS {tmp_path / EXAMPLE}.json",
        "1 passed, 0 failed",
    ]


def test_check_accepts_a_scenario_and_its_answer_once(tmp_path: Path) -> None:
    folder = example_folder(tmp_path)
    completed = conformance(
        "--check", str(folder / f"{EXAMPLE}.json"), str(folder / f"{EXAMPLE}.expected.json")
    )
    assert completed.returncode == 0
    assert completed.stdout.splitlines()[-1] == "1 passed, 0 failed"


def rewrite_answer(folder: Path, change: dict[str, object]) -> None:
    path = folder / f"{EXAMPLE}.expected.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | change))


def test_check_fails_a_differing_value_and_exits_1(tmp_path: Path) -> None:
    folder = example_folder(tmp_path)
    rewrite_answer(folder, {"positions": ["4HPwATDgc/ABMA"]})
    completed = conformance("--check", str(folder))
    assert completed.returncode == 1
    assert completed.stdout.splitlines()[0].startswith(
        f"FAIL {folder / EXAMPLE}.json: positions differs: expected"
    )
    assert completed.stdout.splitlines()[-1] == "0 passed, 1 failed"


def test_check_compares_json_types_exactly(tmp_path: Path) -> None:
    """An integer is not a float nor a boolean: 2 passes, 2.0 and true fail."""
    for answer, passes in ((2, True), (2.0, False), (True, False)):
        folder = tmp_path / str(answer)
        folder.mkdir()
        (folder / "fold.json").write_text(
            json.dumps(
                {
                    "game": "poker",
                    "variant": "nlhe",
                    "blinds": [1, 2],
                    "ante": 0,
                    "players": [{"id": "a", "stack": 100}, {"id": "b", "stack": 100}],
                    "button": "a",
                    "hole_cards": {"a": ["As", "Ah"], "b": ["Kd", "Kc"]},
                    "deck": ["2c", "3c", "4c", "5c", "6c"],
                    "actions": [{"player": "a", "action": "fold"}],
                }
            )
        )
        (folder / "fold.expected.json").write_text(
            json.dumps({"error": None, "winnings": {"b": answer}})
        )
        assert (conformance("--check", str(folder)).returncode == 0) is passes, answer


def test_check_judges_an_expected_illegal_action_by_its_index_only(tmp_path: Path) -> None:
    """The public answer of an illegal raise names action 1: its code and message are free."""
    name = "nlhe-illegal-raise-below-minimum"
    for index, passes in ((1, True), (2, False)):
        folder = tmp_path / str(index)
        folder.mkdir()
        scenario = (PUBLIC / "poker" / f"{name}.json").read_text()
        (folder / f"{name}.json").write_text(scenario)
        answer = {"error": {"action_index": index, "code": "not_compared"}}
        (folder / f"{name}.expected.json").write_text(json.dumps(answer))
        completed = conformance("--check", str(folder))
        assert (completed.returncode == 0) is passes, completed.stdout
    assert "expected an illegal action at index 2, got error=" in completed.stdout


def test_check_fails_a_scenario_without_its_answer(tmp_path: Path) -> None:
    folder = example_folder(tmp_path)
    (folder / f"{EXAMPLE}.expected.json").unlink()
    completed = conformance("--check", str(folder))
    assert completed.returncode == 1
    assert f"no {EXAMPLE}.expected.json beside it" in completed.stdout


def test_check_of_a_folder_without_scenarios_is_exit_2(tmp_path: Path) -> None:
    completed = conformance("--check", str(tmp_path))
    assert completed.returncode == 2
    assert "no scenario in" in completed.stderr
