"""The suite's own guards: a test whose data is missing fails instead of testing nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_an_empty_parameter_list_fails_collection(tmp_path: Path) -> None:
    """A parametrised test over files that are not there collects nothing; with the
    project's pytest settings that is a collection error, not a silent skip."""
    probe = tmp_path / "test_probe.py"
    probe.write_text(
        "import pytest\n\n\n"
        "@pytest.mark.parametrize('path', [])\n"
        "def test_every_file(path):\n"
        "    pass\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            str(ROOT / "pyproject.toml"),
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            str(probe),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0, done.stdout
    assert "Empty parameter set" in done.stdout + done.stderr
