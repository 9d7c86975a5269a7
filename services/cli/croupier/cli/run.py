"""`croupier run`: the embedded platform (see croupier.cli.embedded)."""

from __future__ import annotations

import argparse
import os
import sys

DEFAULT_HTTP_PORT = 8080


def _handle(args: argparse.Namespace) -> int:
    # The embedded PostgreSQL is started and stopped by forking pg_ctl, which never uses
    # gRPC: without this, gRPC logs "skipping fork() handlers" on stderr at every fork.
    # Read when gRPC is first imported, which is below.
    os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
    from croupier.cli.embedded import run_embedded
    from croupier.kit.server import CannotListen

    try:
        http_port = args.http_port
        if http_port is None:  # beside a gRPC port chosen by the system, one chosen too
            http_port = 0 if args.port == 0 else DEFAULT_HTTP_PORT
        return run_embedded(host=args.host, port=args.port, http_port=http_port)
    except CannotListen as error:
        print(
            f"croupier run: {error} (another croupier run? choose one with --port)", file=sys.stderr
        )
        return 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "run",
        help="start the whole platform in one process, nothing to install: the table host, "
        "the wallet, the tournament director and the gateway on one gRPC port, with a throw-away "
        "PostgreSQL (Ctrl-C stops it)",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default %(default)s)"
    )
    parser.add_argument(
        "--port", type=int, default=50051, help="gRPC port (default %(default)s; 0: any free one)"
    )
    parser.add_argument(
        "--http-port",
        type=int,
        default=None,
        help=f"the gateway's Connect / gRPC-Web port (default {DEFAULT_HTTP_PORT}, or any free "
        "one with --port 0; 0: any free one)",
    )
    parser.set_defaults(handler=_handle)
