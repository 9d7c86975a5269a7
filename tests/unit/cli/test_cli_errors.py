"""The `croupier` command's help and refusals, as a user meets them: help for every ledger
option, one clear line and exit code 2 for a bad DSN, schema, database, currency or hand
history (they printed tracebacks, `KeyError('game')` or an empty report with exit 0)."""

from __future__ import annotations

import argparse
import json
import socket
from pathlib import Path

import pytest

from croupier.cli.main import build_parser, main
from tests.support.cli import run


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (group,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(group.choices)


def test_top_level_help_is_written_for_a_user(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert "croupier run " in text and "croupier try " in text
    assert "register(subparsers)" not in text and "handler" not in text
    # Every command says what it does.
    for name, sub in subparsers(build_parser()).items():
        assert sub.description or name in text


def test_every_ledger_option_has_help_with_formats_bounds_and_zone() -> None:
    ledger = subparsers(build_parser())["ledger"]
    parsers = {"ledger": ledger, **subparsers(ledger)}
    for name, parser in parsers.items():
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            assert action.help, f"croupier ledger {name} {action.dest} has no help"
    journal = {a.dest: a.help or "" for a in parsers["journal"]._actions}
    assert "included" in journal["start"] and "excluded" in journal["end"]
    assert "UTC" in journal["start"] and "2026-11-29" in journal["start"]
    assert "UTC" in {a.dest: a.help or "" for a in parsers["reconcile"]._actions}["day"]


def test_ledger_malformed_dsn_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["ledger", "--dsn", "notadsn", "audit"], capsys)
    assert (code, out) == (2, "")
    assert len(err) == 1 and err[0].startswith("croupier ledger: cannot use the database: ")
    assert "DSN" in err[0]


def test_ledger_unreachable_database_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    dsn = f"postgresql://postgres:secret@127.0.0.1:{port}/croupier"
    code, out, err = run(["ledger", "--dsn", dsn, "audit"], capsys)
    assert (code, out) == (2, "")
    assert len(err) == 1 and err[0].startswith("croupier ledger: cannot reach the database: ")
    assert "secret" not in err[0]


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        (
            {},
            "not a hand history: missing game, table_id, hand_number, seed, seed_sha256, commands",
        ),
        ([1, 2], "a hand history is a JSON object (GetHandHistory's history_json)"),
        (
            {
                "game": "poker",
                "table_id": "t",
                "hand_number": "1",
                "seed": "00",
                "seed_sha256": "x",
                "commands": [],
            },
            "not a hand history: hand_number must be a JSON integer",
        ),
        (
            {
                "game": "chess",
                "table_id": "t",
                "hand_number": 1,
                "seed": "00",
                "seed_sha256": "x",
                "commands": [],
            },
            "unknown game 'chess': this version knows backgammon, joker, poker, rummy",
        ),
        (
            {
                "game": "poker",
                "table_id": "t",
                "hand_number": 1,
                "seed": "00",
                "seed_sha256": "x",
                "commands": [],
            },
            "not a hand history: seed must be 64 hexadecimal digits",
        ),
    ],
    ids=["empty", "not-an-object", "wrong-type", "unknown-game", "short-seed"],
)
def test_verify_malformed_history_is_one_line_exit_2(
    document: object, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "history.json"
    path.write_text(json.dumps(document), "utf-8")
    code, out, err = run(["verify", str(path)], capsys)
    assert (code, out) == (2, "")
    assert err == [f"croupier verify: {path}: {reason}"]
