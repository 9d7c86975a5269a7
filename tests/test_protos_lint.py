"""scripts/lint_protos.py: the repository's protos are clean, and each rule catches its defect.

Every case runs the script as `make test` does (a subprocess with the .venv interpreter), on
a small proto tree written to a temporary directory.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "lint_protos.py"


def run_lint(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def write_proto(root: pathlib.Path, relative: str, body: str) -> pathlib.Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body).lstrip())
    return path


GOOD = """
    syntax = "proto3";

    package croupier.sample.v1;

    import "google/protobuf/timestamp.proto";

    enum Suit {
      SUIT_UNSPECIFIED = 0;
      SUIT_CLUBS = 1;
    }

    message Card {
      string code = 1;
      Suit suit = 2;
      map<string, uint32> seen_by = 3;
      optional uint32 rank_value = 4;
      oneof owner {
        string player_id = 5;
        string pile_name = 6;
      }
      google.protobuf.Timestamp dealt_at = 7;
      message Face {
        enum Side {
          SIDE_UNSPECIFIED = 0;
          SIDE_UP = 1;
        }
        Side side = 1;
      }
    }

    service Dealer {
      rpc DealCard(DealCardRequest) returns (DealCardResponse);
      rpc WatchDeck(WatchDeckRequest) returns (stream WatchDeckResponse);
    }

    message DealCardRequest {}
    message DealCardResponse { Card card = 1; }
    message WatchDeckRequest {}
    message WatchDeckResponse { Card card = 1; }
"""


def test_repository_protos_pass_the_lint() -> None:
    done = run_lint()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "clean" in done.stdout


def test_a_well_formed_tree_passes(tmp_path: pathlib.Path) -> None:
    write_proto(tmp_path, "croupier/sample/v1/sample.proto", GOOD)
    done = run_lint("--root", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr


# Each case: (rule, path of the one file, its text, a fragment of the expected message).
BAD_CASES = [
    (
        "PACKAGE_DIRECTORY_MATCH",
        "croupier/sample/v1/sample.proto",
        GOOD.replace("croupier.sample.v1", "croupier.other.v1"),
        "must live in croupier/other/v1/",
    ),
    (
        "PACKAGE_CROUPIER_VERSIONED",
        "croupier/sample/sample.proto",
        GOOD.replace("croupier.sample.v1", "croupier.sample"),
        "croupier.<domain>.v<N>",
    ),
    (
        "PACKAGE_DEFINED",
        "croupier/sample/v1/sample.proto",
        GOOD.replace("package croupier.sample.v1;", ""),
        "declare a package",
    ),
    (
        "FILE_LOWER_SNAKE_CASE",
        "croupier/sample/v1/SampleFile.proto",
        GOOD,
        "SampleFile.proto",
    ),
    (
        "MESSAGE_PASCAL_CASE",
        "croupier/sample/v1/sample.proto",
        GOOD.replace("message Face {", "message face_side {"),
        "croupier.sample.v1.Card.face_side",
    ),
    (
        "FIELD_LOWER_SNAKE_CASE",
        "croupier/sample/v1/sample.proto",
        GOOD.replace("seen_by = 3", "seenBy = 3"),
        "croupier.sample.v1.Card.seenBy should be lower_snake_case (seen_by)",
    ),
    (
        "ONEOF_LOWER_SNAKE_CASE",
        "croupier/sample/v1/sample.proto",
        GOOD.replace("oneof owner", "oneof Owner"),
        "croupier.sample.v1.Card.Owner",
    ),
    (
        "ENUM_PASCAL_CASE",
        "croupier/sample/v1/sample.proto",
        GOOD.replace("enum Suit {", "enum suit {").replace("  Suit suit", "  suit suit"),
        "enum croupier.sample.v1.suit",
    ),
    (
        "ENUM_VALUE_PREFIX",
        "croupier/sample/v1/sample.proto",
        GOOD.replace("SUIT_CLUBS = 1", "CLUBS = 1"),
        "croupier.sample.v1.Suit.CLUBS should start with SUIT_",
    ),
    (
        "ENUM_VALUE_UPPER_SNAKE_CASE",
        "croupier/sample/v1/sample.proto",
        GOOD.replace("SUIT_CLUBS = 1", "SUIT_Clubs = 1"),
        "SUIT_Clubs should be UPPER_SNAKE_CASE",
    ),
    (
        "ENUM_ZERO_VALUE_SUFFIX",
        "croupier/sample/v1/sample.proto",
        GOOD.replace("SIDE_UNSPECIFIED = 0", "SIDE_DOWN = 0"),
        "should be SIDE_UNSPECIFIED = 0 (found SIDE_DOWN = 0)",
    ),
    (
        "SERVICE_PASCAL_CASE",
        "croupier/sample/v1/sample.proto",
        GOOD.replace("service Dealer", "service dealer"),
        "service croupier.sample.v1.dealer",
    ),
    (
        "RPC_PASCAL_CASE",
        "croupier/sample/v1/sample.proto",
        GOOD.replace("rpc DealCard(", "rpc dealCard("),
        "rpc croupier.sample.v1.Dealer.dealCard should be PascalCase",
    ),
    (
        "RPC_REQUEST_STANDARD_NAME",
        "croupier/sample/v1/sample.proto",
        GOOD.replace("rpc DealCard(DealCardRequest)", "rpc DealCard(Card)"),
        "should use croupier.sample.v1.DealCardRequest, not croupier.sample.v1.Card",
    ),
    (
        "RPC_RESPONSE_STANDARD_NAME",
        "croupier/sample/v1/sample.proto",
        GOOD.replace("returns (stream WatchDeckResponse)", "returns (stream Card)"),
        "should use croupier.sample.v1.WatchDeckResponse, not croupier.sample.v1.Card",
    ),
    (
        "RPC_REQUEST_RESPONSE_UNIQUE",
        "croupier/sample/v1/sample.proto",
        GOOD.replace("rpc WatchDeck(WatchDeckRequest)", "rpc WatchDeck(DealCardRequest)"),
        "croupier.sample.v1.DealCardRequest is the request or response 2 times",
    ),
    (
        "IMPORT_USED",
        "croupier/sample/v1/sample.proto",
        GOOD.replace(
            'import "google/protobuf/timestamp.proto";',
            'import "google/protobuf/timestamp.proto";\nimport "google/protobuf/duration.proto";',
        ),
        "import google/protobuf/duration.proto is unused",
    ),
    (
        "IMPORT_NO_PUBLIC",
        "croupier/sample/v1/sample.proto",
        GOOD.replace('import "google', 'import public "google'),
        "no `import public`",
    ),
    (
        "SYNTAX_PROTO3",
        "croupier/sample/v1/sample.proto",
        """
        syntax = "proto2";
        package croupier.sample.v1;
        message Card { optional string code = 1; }
        """,
        'use syntax = "proto3" (found proto2)',
    ),
    (
        "PROTOC_ERROR",
        "croupier/sample/v1/sample.proto",
        GOOD.replace("Suit suit = 2;", "Colour suit = 2;"),
        '"Colour" is not defined',
    ),
]


@pytest.mark.parametrize(
    ("rule", "relative", "text", "fragment"),
    BAD_CASES,
    ids=[case[0] for case in BAD_CASES],
)
def test_each_rule_reports_its_violation(
    tmp_path: pathlib.Path, rule: str, relative: str, text: str, fragment: str
) -> None:
    assert text != GOOD or rule == "FILE_LOWER_SNAKE_CASE"
    write_proto(tmp_path, relative, text)
    done = run_lint("--root", str(tmp_path))
    assert done.returncode == 1, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if f": {rule}: " in line]
    assert lines, f"expected {rule} in:\n{done.stdout}{done.stderr}"
    assert any(fragment in line for line in lines), "\n".join(lines)
    assert all(line.startswith(str(tmp_path / relative)) for line in lines), lines
    assert "violation(s)" in done.stderr


def test_violations_carry_line_numbers(tmp_path: pathlib.Path) -> None:
    write_proto(
        tmp_path,
        "croupier/sample/v1/sample.proto",
        GOOD.replace("seen_by = 3", "seenBy = 3"),
    )
    done = run_lint("--root", str(tmp_path))
    (line,) = [x for x in done.stdout.splitlines() if "FIELD_LOWER_SNAKE_CASE" in x]
    expected = 1 + next(
        number
        for number, text in enumerate(textwrap.dedent(GOOD).lstrip().splitlines())
        if "seen_by = 3" in text
    )
    assert line.startswith(f"{tmp_path / 'croupier/sample/v1/sample.proto'}:{expected}: ")


def test_a_clean_file_beside_a_bad_one_is_not_blamed(tmp_path: pathlib.Path) -> None:
    write_proto(tmp_path, "croupier/sample/v1/sample.proto", GOOD)
    write_proto(
        tmp_path,
        "croupier/other/v1/other.proto",
        """
        syntax = "proto3";
        package croupier.other.v1;
        message Thing { string badName = 1; }
        """,
    )
    done = run_lint("--root", str(tmp_path))
    assert done.returncode == 1
    assert "sample.proto" not in done.stdout
    assert "croupier.other.v1.Thing.badName" in done.stdout


def test_an_empty_tree_fails(tmp_path: pathlib.Path) -> None:
    done = run_lint("--root", str(tmp_path))
    assert done.returncode == 1
    assert "no .proto files found" in done.stdout
