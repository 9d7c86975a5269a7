#!/usr/bin/env bash
# GNU Backgammon for the backgammon table service's abandonment settlements
# (services/backgammon/croupier/backgammon/gnubg_bridge.py) and its tests.
#
#   deploy/local/gnubg.sh ensure   install Debian's gnubg if it is missing (idempotent;
#                                  quick when present); needs root or sudo for apt-get
#   deploy/local/gnubg.sh path     print the gnubg binary's path (exit 1 if missing)
#   deploy/local/gnubg.sh check    run one 2-ply cubeful evaluation (exit 1 on failure)
set -euo pipefail

find_gnubg() {
  if [[ -n "${CROUPIER_GNUBG:-}" && -x "${CROUPIER_GNUBG}" ]]; then
    echo "${CROUPIER_GNUBG}"; return 0
  fi
  if command -v gnubg >/dev/null 2>&1; then command -v gnubg; return 0; fi
  if [[ -x /usr/games/gnubg ]]; then echo /usr/games/gnubg; return 0; fi
  return 1
}

check() {
  local binary dir
  binary="$(find_gnubg)" || { echo "gnubg is not installed" >&2; return 1; }
  dir="$(mktemp -d)"
  trap 'rm -rf "${dir}"' RETURN
  cat >"${dir}/check.py" <<'PY'
import gnubg
b = gnubg.positionfromid("4HPwATDgc/ABMA")
ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
r = gnubg.cfevaluate(b, ci, gnubg.evalcontext(1, 2, 1, 1, 0.0))
print("GNUBG-CHECK-OK %.4f" % r[0])
PY
  if HOME="${dir}" "${binary}" -t -q -r -p "${dir}/check.py" </dev/null 2>&1 | grep -q GNUBG-CHECK-OK; then
    echo "gnubg works: ${binary}"
  else
    echo "gnubg at ${binary} did not evaluate a position" >&2
    return 1
  fi
}

ensure() {
  if find_gnubg >/dev/null; then
    return 0
  fi
  local sudo=""
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || { echo "installing gnubg needs root (apt-get)" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "installing Debian's gnubg ..." >&2
  export DEBIAN_FRONTEND=noninteractive
  ${sudo} apt-get update -qq
  ${sudo} apt-get install -y -qq --no-install-recommends gnubg >/dev/null
  find_gnubg >/dev/null || { echo "gnubg still missing after apt-get install" >&2; exit 1; }
}

case "${1:-ensure}" in
  ensure) ensure ;;
  path) find_gnubg ;;
  check) ensure && check ;;
  *) echo "usage: $0 ensure|path|check" >&2; exit 2 ;;
esac
