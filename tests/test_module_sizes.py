"""A newcomer reads one module for one job: no production module over 500 lines and no
class over 300 (generated protobuf code aside)."""

from __future__ import annotations

import ast
from pathlib import Path

SERVICES = Path(__file__).resolve().parent.parent / "services"
MAX_MODULE_LINES = 500
MAX_CLASS_LINES = 300


def _modules() -> list[Path]:
    return [
        path
        for path in sorted(SERVICES.glob("*/croupier/**/*.py"))
        if "/v1/" not in path.as_posix() and not path.name.endswith(("_pb2.py", "_pb2_grpc.py"))
    ]


def test_no_module_is_over_500_lines() -> None:
    modules = _modules()
    assert len(modules) > 100
    long = {
        path.relative_to(SERVICES).as_posix(): lines
        for path in modules
        if (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_no_class_is_over_300_lines() -> None:
    long = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_CLASS_LINES:
                    long[f"{path.relative_to(SERVICES).as_posix()}:{node.name}"] = lines
    assert long == {}
