"""`croupier verify HISTORY.json`: check a hand history's provably fair deal.

Re-derives the deck or dice from the revealed seed, checks the seed against the
commitment published when the hand began, replays the commands and compares the
result. Exit 0 and "verified" when everything matches; exit 1 listing every mismatch;
exit 2 with one line when the file is not a hand history (not JSON, a field missing or of
the wrong type, a game this version does not know).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys
from typing import Any

from croupier.game.fairness import SEED_BYTES

# The fields `croupier.table.core.history.build` writes that the check reads, and their JSON types.
_FIELDS: dict[str, tuple[type, str]] = {
    "game": (str, "string"),
    "table_id": (str, "string"),
    "hand_number": (int, "integer"),
    "seed": (str, "string"),
    "seed_sha256": (str, "string"),
    "commands": (list, "array"),
}


def _malformed(history: Any, games: list[str]) -> str:
    """Why `history` is not a hand history, or "" when its shape is right."""
    if not isinstance(history, dict):
        return "a hand history is a JSON object (GetHandHistory's history_json)"
    missing = [name for name in _FIELDS if name not in history]
    if missing:
        return f"not a hand history: missing {', '.join(missing)}"
    for name, (kind, json_name) in _FIELDS.items():
        value = history[name]
        if isinstance(value, bool) or not isinstance(value, kind):
            return f"not a hand history: {name} must be a JSON {json_name}"
    if history["game"] not in games:
        return f"unknown game {history['game'][:40]!r}: this version knows {', '.join(games)}"
    if not re.fullmatch(f"[0-9a-f]{{{2 * SEED_BYTES}}}", history["seed"]):
        return f"not a hand history: seed must be {2 * SEED_BYTES} hexadecimal digits"
    return ""


def _handle(args: argparse.Namespace) -> int:
    from croupier.table.core.history import verify
    from croupier.table.games import load_engines

    source: str = args.history
    try:
        text = sys.stdin.read() if source == "-" else pathlib.Path(source).read_text("utf-8")
        history = json.loads(text)
    except (OSError, json.JSONDecodeError) as exc:
        print(f"croupier verify: cannot read {source}: {exc}", file=sys.stderr)
        return 2
    engines = load_engines()
    if reason := _malformed(history, sorted(engines)):
        print(f"croupier verify: {source}: {reason}", file=sys.stderr)
        return 2
    problems = verify(engines, history)
    if problems:
        print("REJECTED")
        for problem in problems:
            print(f"- {problem}")
        return 1
    print(
        f"verified: {history['game']} table {history['table_id']} hand {history['hand_number']}"
        f" (seed sha256 {history['seed_sha256']})"
    )
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="check that a finished hand was dealt fairly: its history's seed, deal "
        "and result (a file written by GetHandHistory or `croupier try --history`)",
    )
    parser.add_argument("history", help="hand history JSON file (GetHandHistory), or -")
    parser.set_defaults(handler=_handle)
