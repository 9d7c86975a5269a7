"""The tournament core stays small: every module under 300 lines (its purity is checked
with every other core's, in tests/test_core_purity.py)."""

from __future__ import annotations

from pathlib import Path

import croupier.tournament.core as core_package


def test_every_core_module_stays_under_300_lines() -> None:
    for path in Path(core_package.__file__).parent.glob("*.py"):
        assert len(path.read_text().splitlines()) < 300, path.name
