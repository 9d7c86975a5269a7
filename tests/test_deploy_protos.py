"""`buf lint` on protos/ with the real buf (deploy/local/tools.sh builds it; `make test`
runs `tools.sh ensure`): the STANDARD rules less SERVICE_SUFFIX (protos/buf.yaml says why);
`buf breaking` against the last release's image (protos/baseline/, refreshed at each
release by its refresh.sh)."""

from __future__ import annotations

import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BASELINE = ROOT / "protos" / "baseline" / "last-release.image.binpb"


def buf() -> str:
    found = subprocess.run(
        [str(ROOT / "deploy" / "local" / "tools.sh"), "path", "buf"],
        capture_output=True,
        text=True,
    )
    if found.returncode != 0:
        pytest.fail(f"buf is not built: {found.stderr.strip()}", pytrace=False)
    return found.stdout.strip()


def lint(directory: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [buf(), "lint"], cwd=directory, capture_output=True, text=True, timeout=120
    )


def test_buf_lint_passes_on_the_protos() -> None:
    done = lint(ROOT / "protos")
    assert done.returncode == 0, done.stdout + done.stderr


def test_buf_lint_reports_a_broken_rule(tmp_path: pathlib.Path) -> None:
    """The check can fail: a field in camelCase is reported with its file and line."""
    copy = tmp_path / "protos"
    shutil.copytree(ROOT / "protos", copy)
    proto = copy / "croupier" / "lobby" / "v1" / "lobby.proto"
    text = proto.read_text()
    proto.write_text(text + "\nmessage BadOne {\n  string camelCase = 1;\n}\n")
    done = lint(copy)
    assert done.returncode != 0
    assert "croupier/lobby/v1/lobby.proto" in done.stdout
    assert "camelCase" in done.stdout


def breaking(directory: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [buf(), "breaking", "--against", str(BASELINE)],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_buf_breaking_finds_nothing_a_released_client_would_trip_on() -> None:
    done = breaking(ROOT / "protos")
    assert done.returncode == 0, done.stdout + done.stderr


def test_buf_breaking_reports_a_renumbered_field(tmp_path: pathlib.Path) -> None:
    """The check can fail: a field given another number breaks the wire."""
    copy = tmp_path / "protos"
    shutil.copytree(ROOT / "protos", copy)
    proto = copy / "croupier" / "table" / "v1" / "table.proto"
    text = proto.read_text()
    assert "  string table_id = 1;" in text
    proto.write_text(text.replace("  string table_id = 1;", "  string table_id = 99;", 1))
    done = breaking(copy)
    assert done.returncode != 0
    assert "croupier/table/v1/table.proto" in done.stdout
