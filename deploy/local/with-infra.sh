#!/usr/bin/env bash
# Run a command against a real Kafka broker and a real PostgreSQL, starting them if needed.
#
#   deploy/local/with-infra.sh CMD [ARGS...]
#
# Exports CROUPIER_KAFKA_BOOTSTRAP and CROUPIER_POSTGRES_DSN, runs CMD, and exits with CMD's exit
# code. A service that was already running (`make infra-up`, another with-infra.sh) is reused and
# left running. A service started here is stopped when the last with-infra.sh using it exits
# (normally, on failure or on an interrupt): several runs may share one broker and one database
# at the same time, since tests use unique topic, group and schema names.
# If CROUPIER_KAFKA_BOOTSTRAP / CROUPIER_POSTGRES_DSN are already set (e.g. Docker, compose.yaml),
# those are used and nothing is started for them.
set -uo pipefail

if [[ $# -eq 0 ]]; then
  echo "usage: $0 CMD [ARGS...]" >&2
  exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
state="$root/.local"
users="$state/infra-users"
lock="$state/infra.lock"
mkdir -p "$users"

log() { echo "with-infra.sh: $*" >&2; }

# Under the lock: register this run, start what is missing (marking it as started by with-infra).
acquire() {
  exec 9>"$lock"
  flock 9
  echo "$$" >"$users/$$"
  local failed=0
  if [[ -z "${CROUPIER_KAFKA_BOOTSTRAP:-}" ]]; then
    if ! "$here/kafka.sh" status >/dev/null; then
      local t0=$SECONDS
      if "$here/kafka.sh" start; then
        touch "$state/kafka.started-by-with-infra"
        log "kafka started in $((SECONDS - t0)) s"
      else
        failed=1
      fi
    fi
    export CROUPIER_KAFKA_BOOTSTRAP="127.0.0.1:9092"
  fi
  if [[ $failed -eq 0 && -z "${CROUPIER_POSTGRES_DSN:-}" ]]; then
    if ! "$here/postgres.sh" status >/dev/null; then
      if "$here/postgres.sh" start; then
        touch "$state/postgres.started-by-with-infra"
      else
        failed=1
      fi
    fi
    if [[ $failed -eq 0 ]]; then
      CROUPIER_POSTGRES_DSN="$(cat "$state/postgres.dsn")"
      export CROUPIER_POSTGRES_DSN
    fi
  fi
  flock -u 9
  return $failed
}

# Under the lock: deregister; if no other live run remains, stop what with-infra started.
release() {
  exec 9>"$lock"
  flock 9
  rm -f "$users/$$"
  local other alive=0
  for other in "$users"/*; do
    [[ -e "$other" ]] || continue
    if kill -0 "$(basename "$other")" 2>/dev/null; then
      alive=1
    else
      rm -f "$other"  # a run that died without cleaning up
    fi
  done
  if [[ $alive -eq 0 ]]; then
    if [[ -e "$state/kafka.started-by-with-infra" ]]; then
      "$here/kafka.sh" stop || true
      rm -f "$state/kafka.started-by-with-infra"
    fi
    if [[ -e "$state/postgres.started-by-with-infra" ]]; then
      "$here/postgres.sh" stop || true
      rm -f "$state/postgres.started-by-with-infra"
    fi
  else
    log "other runs still use the infrastructure; leaving it running for them"
  fi
  flock -u 9
}

released=0
cleanup() {
  if [[ $released -eq 0 ]]; then
    released=1
    release
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

if ! acquire; then
  log "could not start the infrastructure"
  exit 1
fi
log "CROUPIER_KAFKA_BOOTSTRAP=$CROUPIER_KAFKA_BOOTSTRAP CROUPIER_POSTGRES_DSN=$CROUPIER_POSTGRES_DSN"

# CMD runs in the foreground: an interrupt from the terminal reaches it (same process group) and
# our INT trap runs once it has exited; the EXIT trap then releases the infrastructure.
"$@"
status=$?
exit "$status"
