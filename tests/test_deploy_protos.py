"""`buf lint` on protos/ with the real buf (deploy/local/tools.sh builds it; `make test`
runs `tools.sh ensure`): the STANDARD rules less SERVICE_SUFFIX (protos/buf.yaml says why)."""

from __future__ import annotations

import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


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
