"""`croupier conformance`: replay JSON scenarios through the same pure engines the tables run.

Format: docs/conformance.md. One document → one JSON object on stdout; several documents →
one JSON object per line, in order. Exit 2 with one line on stderr when a document is
malformed. `--check` compares each scenario with the answer written beside it instead.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pathlib
import sys
from typing import Any, Protocol, cast

from croupier.game.limits import echo
from croupier.kit.scenario import MalformedScenario

# The game named in a document → the module that replays it. Each module has
# `run_scenario(document: dict) -> dict` and nothing else is needed by this command.
GAME_MODULES = {
    "poker": "croupier.poker.tools.conformance",
    "backgammon": "croupier.backgammon.tools.conformance",
    "rummy": "croupier.rummy.tools.conformance",
    "joker": "croupier.joker.tools.conformance",
    "tournament": "croupier.tournament.conformance",
}

# X.json's answer is X.expected.json in the same folder (docs/conformance.md).
ANSWER_SUFFIX = ".expected.json"

HELP = """\
Replay conformance scenarios (docs/conformance.md) through the game engines.

Without --check: prints each scenario's result, one JSON document for one file, one
JSON object per line for several. Files named *.expected.json are answers, not
scenarios, and are left out, so `croupier conformance poker/*.json` replays every
scenario of the folder. Exit 0 when every document was understood (an illegal action
is reported inside its result), 2 when one is malformed.

With --check: each FILE may be a scenario X.json, its answer X.expected.json or a
folder (searched recursively). Every scenario is replayed and compared with the
X.expected.json beside it the way the public conformance vectors are judged: the
decisive keys of its game must be equal as JSON values (integers stay integers), and
where the answer expects an illegal action only its action_index counts. Prints
PASS/FAIL per scenario and a count; exit 0 when all pass, 1 when one fails, 2 when
no scenario is found.
"""


class _ScenarioRunner(Protocol):
    def run_scenario(self, document: dict[str, Any]) -> dict[str, Any]: ...


def run_document(document: object) -> dict[str, Any]:
    """Replay one parsed document; raises MalformedScenario when it cannot be understood."""
    if not isinstance(document, dict):
        raise MalformedScenario("a scenario must be a JSON object")
    game = document.get("game")
    if game not in GAME_MODULES:
        known = ", ".join(sorted(GAME_MODULES))
        raise MalformedScenario(f"unknown game {game!r}; expected one of: {known}")
    module = cast(_ScenarioRunner, importlib.import_module(GAME_MODULES[game]))
    try:
        return module.run_scenario(document)
    except MalformedScenario:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        # A value of the wrong shape that slipped past the game's reader: still a
        # malformed document (exit 2), never a crash.
        raise MalformedScenario(
            f"a value has the wrong shape ({type(exc).__name__}: {exc})"
        ) from exc


def decisive_keys(document: dict[str, Any]) -> tuple[str, ...]:
    """The output keys a scenario passes or fails on, by game and kind (docs/conformance.md)."""
    game, kind = document.get("game"), document.get("kind")
    if game == "backgammon" and kind == "legal_moves":
        return ("positions",)
    if game == "backgammon":
        match = ("score",) if document.get("mode") == "match" else ()
        return ("status", "winner", "result", "cube", "points", "payout", *match)
    if game == "poker":
        naiko = ("destellos", "private") if document.get("variant") == "naiko" else ()
        return ("status", "stacks", "board", "pots", "returned", "winnings", *naiko)
    if game == "joker" and kind == "score_pulka":
        return ("hand_scores", "premia", "moshla", "crossed_out", "total", "sheet")
    if game == "joker":
        return ("status", "trump", "bids", "tricks", "hand_scores")
    if game == "tournament":
        return (
            "status",
            "level",
            "chips",
            "points",
            "rebuys",
            "eliminated",
            "final_table",
            "ranking",
            "prizes",
        )
    return ("status", "ending", "winner", "deadwood", "penalty", "chips_paid", "chips_won")


def _json(value: object) -> str:
    # Canonical text: equal only when the values are equal with their JSON types
    # (1, 1.0 and true all differ), whatever the order of an object's keys.
    return json.dumps(value, sort_keys=True)


def judge(document: dict[str, Any], out: dict[str, Any], answer: dict[str, Any]) -> str | None:
    """None when `out` matches `answer`, else why not (one line)."""
    wanted = answer.get("error")
    got = out.get("error")
    if isinstance(wanted, dict):
        index = wanted.get("action_index")
        if not isinstance(got, dict) or _json(got.get("action_index")) != _json(index):
            return f"expected an illegal action at index {index}, got error={echo(_json(got))}"
        return None
    if got is not None:
        return f"unexpected error: {echo(_json(got))}"
    for key in decisive_keys(document):
        if key not in answer:
            continue
        value = out.get(key)
        if key == "positions" and isinstance(value, list):
            value = sorted(value)
        if _json(value) != _json(answer[key]):
            return f"{key} differs: expected {echo(_json(answer[key]))}, got {echo(_json(value))}"
    return None


def _read(source: str) -> object:
    try:
        text = sys.stdin.read() if source == "-" else pathlib.Path(source).read_text("utf-8")
    except OSError as exc:
        raise MalformedScenario(f"{source}: cannot read: {exc.strerror}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise MalformedScenario(f"{source}: not valid JSON: {exc}") from exc


def _is_answer(source: str) -> bool:
    return source.endswith(ANSWER_SUFFIX)


def _replay(sources: list[str]) -> int:
    scenarios = [source for source in sources if not _is_answer(source)]
    if not scenarios:
        print(
            f"croupier conformance: no scenario given ({ANSWER_SUFFIX} files are answers; "
            "use --check to compare with them)",
            file=sys.stderr,
        )
        return 2
    results: list[dict[str, Any]] = []
    for source in scenarios:
        try:
            results.append(run_document(_read(source)))
        except MalformedScenario as exc:
            print(f"croupier conformance: {source}: {exc}", file=sys.stderr)
            return 2
    if len(results) == 1:
        print(json.dumps(results[0], indent=2, sort_keys=True))
    else:
        for result in results:
            print(json.dumps(result, sort_keys=True))
    return 0


def _scenario_paths(sources: list[str]) -> list[pathlib.Path]:
    """The scenarios named by files and folders, each once, in the order given."""
    found: dict[pathlib.Path, None] = {}
    for source in sources:
        path = pathlib.Path(source)
        if path.is_dir():
            candidates = sorted(p for p in path.rglob("*.json") if not _is_answer(p.name))
        elif _is_answer(path.name):
            candidates = [path.with_name(path.name.removesuffix(ANSWER_SUFFIX) + ".json")]
        else:
            candidates = [path]
        found.update(dict.fromkeys(candidates))
    return list(found)


def _check_one(path: pathlib.Path) -> str | None:
    answer_path = path.with_name(path.name.removesuffix(".json") + ANSWER_SUFFIX)
    try:
        document = _read(str(path))
        if not answer_path.is_file():
            return f"no {answer_path.name} beside it"
        answer = _read(str(answer_path))
        out = run_document(document)
    except MalformedScenario as exc:
        return str(exc)
    if not isinstance(answer, dict):
        return f"{answer_path.name} is not a JSON object"
    return judge(cast(dict[str, Any], document), out, answer)


def _check(sources: list[str]) -> int:
    paths = _scenario_paths(sources)
    if not paths:
        print(f"croupier conformance --check: no scenario in {', '.join(sources)}", file=sys.stderr)
        return 2
    failed = 0
    for path in paths:
        why = _check_one(path)
        if why is None:
            print(f"PASS {path}")
        else:
            failed += 1
            print(f"FAIL {path}: {why}")
    print(f"{len(paths) - failed} passed, {failed} failed")
    return 1 if failed else 0


def _handle(args: argparse.Namespace) -> int:
    sources: list[str] = args.files
    return _check(sources) if args.check else _replay(sources)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "conformance",
        help="replay JSON scenarios through the game engines",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="compare each scenario X.json with X.expected.json beside it; FILE may be a folder",
    )
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="scenario files, or - for standard input"
    )
    parser.set_defaults(handler=_handle)
