#!/usr/bin/env bash
# GNU Backgammon for the backgammon table service's abandonment settlements
# (services/backgammon/croupier/backgammon/adapters/gnubg_bridge.py) and its tests.
#
# Why a system package: a game left by a player who does not come back is settled from
# gnubg's 2-ply *cubeful* evaluation of the position (cube value and owner, match score,
# Crawford, beavers; match winning chances from its match equity table). PyPI's gnubg-nn
# only evaluates cubelessly (its evaluate_cube_decision is "not implemented for money"
# and takes no cube or score), so the gnubg program itself is needed: Debian's `gnubg`.
#
#   deploy/local/gnubg.sh ensure   install Debian's gnubg if it is missing (idempotent;
#                                  quick when present); needs root or sudo and the
#                                  network for apt-get, and says so before it starts.
#                                  CROUPIER_GNUBG=/path/to/gnubg uses a gnubg of your own.
#   deploy/local/gnubg.sh path     print the gnubg binary's path (exit 1 if missing)
#   deploy/local/gnubg.sh check    run one 2-ply cubeful evaluation (exit 1 on failure)
set -euo pipefail
# shellcheck source=deploy/local/apt-package.sh
source "$(dirname "${BASH_SOURCE[0]}")/apt-package.sh"

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

WHY="the backgammon table settles an abandoned game from GNU Backgammon's cubeful"
WHY+=" evaluation, which only the gnubg program offers (PyPI's gnubg-nn is cubeless)"

ensure() {
  apt_package_ensure gnubg.sh gnubg find_gnubg CROUPIER_GNUBG \
    "GNU Backgammon 1.07, about 100 MB with its libraries: ${WHY}"
}

case "${1:-ensure}" in
  ensure) ensure ;;
  path) find_gnubg ;;
  check) ensure && check ;;
  *) echo "usage: $0 ensure|path|check" >&2; exit 2 ;;
esac
