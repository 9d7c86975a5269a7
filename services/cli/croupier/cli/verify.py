"""`croupier verify HISTORY.json`: check a hand history's provably fair deal.

Re-derives the deck or dice from the revealed seed, checks the seed against the
commitment published when the hand began, replays the commands and compares the
result. Exit 0 and "verified" when everything matches; exit 1 listing every mismatch.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys


def _handle(args: argparse.Namespace) -> int:
    from croupier.table.games import load_engines
    from croupier.table.history import verify

    source: str = args.history
    try:
        text = sys.stdin.read() if source == "-" else pathlib.Path(source).read_text("utf-8")
        history = json.loads(text)
    except (OSError, json.JSONDecodeError) as exc:
        print(f"croupier verify: cannot read {source}: {exc}", file=sys.stderr)
        return 2
    if not isinstance(history, dict):
        print("croupier verify: a hand history is a JSON object", file=sys.stderr)
        return 2
    problems = verify(load_engines(), history)
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
    parser = subparsers.add_parser("verify", help="check a hand history's provably fair deal")
    parser.add_argument("history", help="hand history JSON file (GetHandHistory), or -")
    parser.set_defaults(handler=_handle)
