#!/usr/bin/env bash
# Debian's Chromium for the web page's test (tests/integration/gateway/test_web_page.py),
# which drives it with Playwright for Python through `executable_path`: Playwright's own
# browser download is not used (it fetches from outside the package registries).
#
#   deploy/local/chromium.sh ensure   install Debian's chromium if it is missing (idempotent;
#                                     root or sudo). CROUPIER_CHROMIUM=/path uses your own.
#   deploy/local/chromium.sh path     print the browser's path (exit 1 if missing)
set -euo pipefail

find_chromium() {
  if [[ -n "${CROUPIER_CHROMIUM:-}" && -x "${CROUPIER_CHROMIUM}" ]]; then
    echo "${CROUPIER_CHROMIUM}"; return 0
  fi
  for candidate in chromium chromium-browser; do
    if command -v "${candidate}" >/dev/null 2>&1; then command -v "${candidate}"; return 0; fi
  done
  return 1
}

ensure() {
  if find_chromium >/dev/null; then
    return 0
  fi
  local sudo=""
  if [[ "$(id -u)" != 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "chromium.sh: Chromium is missing; the web page's test drives it." >&2
      echo "  Install it as root: apt-get install --no-install-recommends chromium" >&2
      echo "  (or set CROUPIER_CHROMIUM to a Chromium binary)." >&2
      exit 1
    fi
    sudo="sudo"
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "chromium.sh: Chromium is missing and this is not a Debian/Ubuntu system;" >&2
    echo "  install it with your package manager, or set CROUPIER_CHROMIUM to its path." >&2
    exit 1
  fi
  echo "chromium.sh: installing Debian's chromium package with ${sudo:+sudo }apt-get (the web" >&2
  echo "  page's test runs in it). Set CROUPIER_CHROMIUM to use a browser of your own." >&2
  export DEBIAN_FRONTEND=noninteractive
  ${sudo} apt-get update -qq
  ${sudo} apt-get install -y -qq --no-install-recommends chromium >/dev/null
  find_chromium >/dev/null || { echo "chromium.sh: chromium still missing after apt-get" >&2; exit 1; }
  echo "chromium.sh: installed $(find_chromium)" >&2
}

case "${1:-ensure}" in
  ensure) ensure ;;
  path) find_chromium ;;
  *) echo "usage: $0 ensure|path" >&2; exit 2 ;;
esac
