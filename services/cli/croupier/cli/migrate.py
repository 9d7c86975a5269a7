"""`croupier migrate SERVICE`: apply a service's pending schema migrations, then exit.

    croupier migrate lobby
    croupier migrate tournament

The chart runs it as a Job (a Helm pre-install and pre-upgrade hook) before the service's
new pods start; those pods only check that nothing is missing
(`CROUPIER_MIGRATE_AT_START=check`, croupier.kit.migrations). The wallet's is
`croupier ledger migrate`. The database and the schema are the service's own settings
(`CROUPIER_POSTGRES_DSN`, `CROUPIER_LOBBY_SCHEMA` / `CROUPIER_TOURNAMENT_SCHEMA`), read
the way the service reads them. Exit codes: 0 migrated (or nothing to do), 2 refused (one
line on stderr: a setting, an unreachable database, an edited migration).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import sys
from typing import Any

__all__ = ["register"]

# The service's bootstrap module and its settings class (both have `open_database`).
SERVICES = {
    "lobby": ("croupier.lobby.bootstrap", "LobbySettings"),
    "tournament": ("croupier.tournament.bootstrap", "DirectorSettings"),
}


async def _migrate(service: str) -> None:
    from croupier.kit.settings import load

    module_name, settings_class = SERVICES[service]
    module: Any = importlib.import_module(module_name)
    settings = load(getattr(module, settings_class))
    # The service's own start-up path (`open_database`: migrate, then open a pool), told to
    # apply whatever the pods' setting says: this process is the one that migrates.
    os.environ["CROUPIER_MIGRATE_AT_START"] = "apply"
    pool = await module.open_database(settings.postgres_dsn, settings.schema, pool_size=1)
    await pool.close()


def _run(args: argparse.Namespace) -> int:
    import asyncpg  # type: ignore[import-untyped]

    try:
        asyncio.run(_migrate(args.service))
    except (OSError, RuntimeError, ValueError, asyncpg.PostgresError) as exc:
        # A setting, the database unreachable or refusing, an edited migration.
        print(f"croupier migrate {args.service}: {exc}", file=sys.stderr)
        return 2
    print(f"croupier migrate {args.service}: the schema is up to date", file=sys.stderr)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "migrate",
        help="apply a service's pending schema migrations (the chart's migration Jobs)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("service", choices=sorted(SERVICES), help="whose schema")
    parser.set_defaults(handler=_run)
