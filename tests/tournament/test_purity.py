"""The tournament core is pure (.notes/TEAM.md): standard library, `croupier.kit.limits`,
`croupier.kit.fairness` (seeded expansion) and itself only, so the director service and
`croupier conformance` share it."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import croupier.tournament.core as core_package

ALLOWED_CROUPIER = ("croupier.tournament.core", "croupier.kit.limits", "croupier.kit.fairness")
IMPURE_STDLIB = {
    "asyncio", "datetime", "io", "logging", "os", "pathlib", "random", "secrets", "socket",
    "subprocess", "threading", "time", "uuid",
}  # fmt: skip


def test_core_imports_only_the_standard_library_itself_and_the_pure_kit() -> None:
    folder = Path(core_package.__file__).parent
    paths = sorted(folder.glob("*.py"))
    assert len(paths) >= 7
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                assert node.level == 0 and node.module, f"{path.name}: relative import"
                names = [node.module]
            for name in names:
                root = name.split(".")[0]
                if root == "croupier":
                    assert name.startswith(ALLOWED_CROUPIER), f"{path.name} imports {name}"
                else:
                    assert root in sys.stdlib_module_names, f"{path.name} imports {name}"
                    assert root not in IMPURE_STDLIB, f"{path.name} imports {name}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in {"open", "print", "input"}, path.name


def test_every_core_module_stays_under_300_lines() -> None:
    for path in Path(core_package.__file__).parent.glob("*.py"):
        assert len(path.read_text().splitlines()) < 300, path.name
