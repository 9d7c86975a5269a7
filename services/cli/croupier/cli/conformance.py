"""`croupier conformance`: replay JSON scenarios through the same pure engines the tables run.

Format: ../shared/conformance/README.md. One document → one JSON object on stdout; several
documents → one JSON object per line, in order. Exit 2 with one line on stderr when a
document is malformed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pathlib
import sys
from typing import Any, Protocol, cast

from croupier.kit.scenario import MalformedScenario

# The game named in a document → the module that replays it. Each module has
# `run_scenario(document: dict) -> dict` and nothing else is needed by this command.
GAME_MODULES = {
    "poker": "croupier.poker.conformance",
    "backgammon": "croupier.backgammon.conformance",
    "rummy": "croupier.rummy.conformance",
    "joker": "croupier.joker.conformance",
}


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


def _read(source: str) -> object:
    try:
        text = sys.stdin.read() if source == "-" else pathlib.Path(source).read_text("utf-8")
    except OSError as exc:
        raise MalformedScenario(f"{source}: cannot read: {exc.strerror}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise MalformedScenario(f"{source}: not valid JSON: {exc}") from exc


def _handle(args: argparse.Namespace) -> int:
    sources: list[str] = args.files
    results: list[dict[str, Any]] = []
    for source in sources:
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


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "conformance", help="replay JSON scenarios through the game engines"
    )
    parser.add_argument("files", nargs="+", help="scenario files, or - for standard input")
    parser.set_defaults(handler=_handle)
