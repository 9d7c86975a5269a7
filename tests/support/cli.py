"""Running the `croupier` command in process, as the CLI tests do."""

from __future__ import annotations

import pytest

from croupier.cli.main import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, list[str]]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err.splitlines()
