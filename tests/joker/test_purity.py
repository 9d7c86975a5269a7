"""The engine is pure: no module of croupier.joker imports I/O, clocks or randomness."""

from __future__ import annotations

import ast
import pathlib

import croupier.joker

FORBIDDEN = {
    "random",
    "time",
    "datetime",
    "os",
    "sys",
    "socket",
    "asyncio",
    "subprocess",
    "secrets",
    "threading",
    "grpc",
    "aiokafka",
    "asyncpg",
    "structlog",
    "logging",
    "pathlib",
    "io",
}
PACKAGE = pathlib.Path(croupier.joker.__file__).parent


def test_engine_modules_import_nothing_impure() -> None:
    modules = [p for p in PACKAGE.glob("*.py")]
    assert len(modules) >= 12
    for path in modules:
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
                if node.module == "croupier.game.fairness":
                    assert all(a.name != "new_seed" for a in node.names), path.name
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"
