"""`croupier run`: the embedded platform (see croupier.kit.embedded)."""

from __future__ import annotations

import argparse


def _handle(args: argparse.Namespace) -> int:
    from croupier.cli.embedded import run_embedded

    return run_embedded(host=args.host, port=args.port)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run every implemented service in one process (in-memory bus, embedded PostgreSQL)",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=50051, help="first gRPC port")
    parser.set_defaults(handler=_handle)
