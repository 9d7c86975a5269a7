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
    "croupier.cli.kafka",
    "croupier.cli.ledger",
    "croupier.cli.migrate",
    "croupier.cli.play",
    "croupier.cli.run",
    "croupier.cli.serve",
    "croupier.cli.token",
    "croupier.cli.try_it",
    "croupier.cli.verify",
)

DESCRIPTION = """\
Croupier: the backend of online card and board game rooms (poker, backgammon, rummy,
Georgian Joker). Start here:

  croupier run     the whole platform in one process, nothing to install (Ctrl-C stops it)
  croupier try     then, in another terminal: play a hand of poker against two bots on it
  croupier play    or play poker or backgammon against bots yourself, through the gateway

`croupier COMMAND --help` explains each command.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="croupier",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subparsers = parser.add_subparsers(dest="command", required=True, title="commands")
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
