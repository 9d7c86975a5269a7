"""`croupier token --player NAME`: a development token for the gateway.

The token is signed with the signing key of the gateway's key set: `CROUPIER_AUTH_KEYS`
when it is set (the same variable `croupier serve gateway` reads), else the key set a
running `croupier run` generated at its start and wrote to `.local/gateway-keys` (readable
by its owner only, deleted when it stops). Print it, then send it as
`authorization: Bearer <token>`. `--operator` adds the operator role (the gateway's
back-office calls, such as setting an account's limits).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from croupier.kit.auth import OPERATOR_ROLE, KeySet, check_player_name, issue_token

__all__ = ["DEV_KEYS_FILE", "SERVICE_KEYS_FILE", "read_key_set", "register", "write_dev_keys"]

DEV_KEYS_FILE = Path(".local") / "gateway-keys"
# The services' key set of a `croupier run` started without CROUPIER_SERVICE_KEYS, for
# the development tools that call its internal services (`croupier try`).
SERVICE_KEYS_FILE = Path(".local") / "service-keys"
KEYS_VARIABLE = "CROUPIER_AUTH_KEYS"
DEFAULT_TTL_SECONDS = 3600


def write_dev_keys(key_set: KeySet, path: Path = DEV_KEYS_FILE) -> None:
    """Where `croupier token` finds the embedded platform's keys: readable by the owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(key_set.format() + "\n")


def read_key_set(variable: str, keys_file: Path) -> KeySet:
    """The key set in environment variable `variable`, else the one `croupier run` wrote
    to `keys_file`; ValueError saying where to get one."""
    text = os.environ.get(variable, "")
    where = variable
    if not text:
        where = str(keys_file)
        try:
            text = keys_file.read_text()
        except FileNotFoundError:
            raise ValueError(
                f"no key set: set {variable} (kid=secret,...) or start `croupier run` "
                f"in this directory (it writes {keys_file})"
            ) from None
    try:
        return KeySet.parse(text)
    except ValueError as error:
        raise ValueError(f"the key set in {where} is invalid: {error}") from None


def _player(text: str) -> str:
    try:
        return check_player_name(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _handle(args: argparse.Namespace) -> int:
    try:
        key_set = read_key_set(KEYS_VARIABLE, args.keys_file)
    except ValueError as error:
        print(f"croupier token: {error}", file=sys.stderr)
        return 2
    roles = frozenset({OPERATOR_ROLE}) if args.operator else frozenset()
    print(issue_token(key_set, args.player, now=time.time(), ttl_seconds=args.ttl, roles=roles))
    return 0


def _ttl(text: str) -> int:
    value = int(text)
    if not 0 < value <= 86_400:
        raise argparse.ArgumentTypeError("between 1 and 86400 seconds")
    return value


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "token",
        help="print a development token for the gateway (authorization: Bearer TOKEN)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--player", required=True, type=_player, help="the player it proves")
    parser.add_argument(
        "--operator", action="store_true", help="with the operator role (back-office calls)"
    )
    parser.add_argument(
        "--ttl",
        type=_ttl,
        default=DEFAULT_TTL_SECONDS,
        help="seconds it stays valid (default %(default)s)",
    )
    parser.add_argument(
        "--keys-file",
        type=Path,
        default=DEV_KEYS_FILE,
        help="the embedded platform's key set, read when CROUPIER_AUTH_KEYS is not set "
        "(default %(default)s)",
    )
    parser.set_defaults(handler=_handle)
