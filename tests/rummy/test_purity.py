"""The rummy engine is pure: no I/O, clock or randomness inside (.notes/TEAM.md,
docs/architecture.md §2)."""

from __future__ import annotations

import ast
from pathlib import Path

import croupier.rummy

FORBIDDEN = {
    "random",
    "time",
    "datetime",
    "os",
    "socket",
    "asyncio",
    "secrets",
    "subprocess",
    "threading",
    "uuid",
    "grpc",
    "aiokafka",
    "asyncpg",
    "pathlib",
    "io",
    "logging",
}
ALLOWED_CROUPIER = (
    "croupier.rummy",
    "croupier.game",
    "croupier.game.fairness",
    "croupier.kit.scenario",
    # The round's chips and points arithmetic is the director's pure core (one copy).
    "croupier.tournament.core",
)


def test_engine_imports_nothing_impure() -> None:
    package = Path(croupier.rummy.__file__).parent
    for path in sorted(package.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"
                if name.startswith("croupier"):
                    assert name.startswith(ALLOWED_CROUPIER), f"{path.name} imports {name}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in {"open", "print", "input"}, path.name


def test_deal_from_seed_is_deterministic() -> None:
    from croupier.rummy import gin, rummy51, table

    seed = bytes(range(32))
    assert table.start(gin.RULES, ["a", "b"], "b", seed) == table.start(
        gin.RULES, ["a", "b"], "b", seed
    )
    state = table.start(rummy51.RULES, ["a", "b", "c"], "c", seed)
    counts = [len(hand) for hand in state.hands]
    assert counts == [14, 14, 14]
    assert len(state.stock) == 108 - 42 - 1
