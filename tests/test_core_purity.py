"""Every `core/` is pure: it imports the standard library (nothing that does I/O, reads the
clock or draws randomness), `croupier.game` and its own package, and nothing else.

One allow-list over the AST of every module of every core, so a rule that reaches for a
database, a clock, a protobuf message or another part of the platform fails here, in
whichever game, the table host, the wallet or the tournament director it was written.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SERVICES = Path(__file__).resolve().parent.parent / "services"
IMPURE_STDLIB = {
    "asyncio", "io", "logging", "os", "pathlib", "random", "secrets", "socket",
    "subprocess", "sys", "threading", "time", "uuid",
}  # fmt: skip
# Every core there is; a new one is added here (the test fails on one it does not know).
CORES = {
    "croupier.bots.core": SERVICES / "bots/croupier/bots/core",
    "croupier.backgammon.core": SERVICES / "backgammon/croupier/backgammon/core",
    "croupier.game": SERVICES / "game/croupier/game",
    "croupier.gateway.core": SERVICES / "gateway/croupier/gateway/core",
    "croupier.joker.core": SERVICES / "joker/croupier/joker/core",
    "croupier.lobby.core": SERVICES / "lobby/croupier/lobby/core",
    "croupier.poker.core": SERVICES / "poker/croupier/poker/core",
    "croupier.rummy.core": SERVICES / "rummy/croupier/rummy/core",
    "croupier.table.core": SERVICES / "table/croupier/table/core",
    "croupier.tournament.core": SERVICES / "tournament/croupier/tournament/core",
    "croupier.wallet.core": SERVICES / "wallet/croupier/wallet/core",
}


def test_every_core_folder_is_checked() -> None:
    found = {
        f"croupier.{path.parent.name}.core"
        for path in SERVICES.glob("*/croupier/*/core")
        if path.is_dir()
    }
    assert found | {"croupier.game"} == set(CORES)


def _imports(tree: ast.AST) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module, "a relative import"
            names.append(node.module)
    return names


def _problems(core: str, path: Path) -> list[str]:
    """What in the module at `path`, part of `core`, is not allowed in a core."""
    tree = ast.parse(path.read_text(), str(path))
    problems = []
    for name in _imports(tree):
        root = name.split(".")[0]
        if root == "croupier":
            if not any(name == a or name.startswith(a + ".") for a in ("croupier.game", core)):
                problems.append(f"{path.name} imports {name}")
        elif root not in sys.stdlib_module_names or root in IMPURE_STDLIB:
            problems.append(f"{path.name} imports {name}")
    for node in ast.walk(tree):
        called = node.func if isinstance(node, ast.Call) else None
        if isinstance(called, ast.Name) and called.id in {"open", "print", "input"}:
            problems.append(f"{path.name} calls {called.id}")
        # datetime values are fine in a core; reading the clock is not
        if isinstance(called, ast.Attribute) and called.attr in {"now", "utcnow", "today"}:
            problems.append(f"{path.name} reads the clock")
    return problems


@pytest.mark.parametrize("core", sorted(CORES))
def test_a_core_imports_only_the_standard_library_croupier_game_and_itself(core: str) -> None:
    paths = sorted(CORES[core].rglob("*.py"))
    assert paths, f"{core} has no modules"
    assert [p for path in paths for p in _problems(core, path)] == []


def test_the_check_refuses_io_clocks_other_parts_and_the_os_seed(tmp_path: Path) -> None:
    rule = tmp_path / "rule.py"
    rule.write_text(
        "import time\nimport grpc\nfrom croupier.kit import logs\n"
        "import secrets\nfrom croupier.poker.core import x\nimport datetime\n"
        "from croupier.game.errors import RuleBroken\nprint(datetime.datetime.now())\n"
    )
    assert _problems("croupier.poker.core", rule) == [
        "rule.py imports time",
        "rule.py imports grpc",
        "rule.py imports croupier.kit",
        "rule.py imports secrets",
        "rule.py calls print",
        "rule.py reads the clock",
    ]
