"""`croupier` command line: dispatches to one module per subcommand.

Each subcommand module exposes `register(subparsers)`, which adds its parser and sets
`handler` (a function taking the parsed namespace and returning an exit code).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

SUBCOMMAND_MODULES = (
    "croupier.cli.conformance",
    "croupier.cli.ledger",
    "croupier.cli.run",
    "croupier.cli.serve",
    "croupier.cli.verify",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="croupier", description=__doc__)
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
