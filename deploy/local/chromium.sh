#!/usr/bin/env bash
# Debian's Chromium for the web page's test (tests/integration/gateway/test_web_page.py),
# which drives it with Playwright for Python through `executable_path`: Playwright's own
# browser download is not used (it fetches from outside the package registries).
#
#   deploy/local/chromium.sh ensure   install Debian's chromium if it is missing (idempotent;
#                                     root or sudo). CROUPIER_CHROMIUM=/path uses your own.
#   deploy/local/chromium.sh path     print the browser's path (exit 1 if missing)
set -euo pipefail
# shellcheck source=deploy/local/apt-package.sh
source "$(dirname "${BASH_SOURCE[0]}")/apt-package.sh"

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
  apt_package_ensure chromium.sh chromium find_chromium CROUPIER_CHROMIUM \
    "the web page's test (tests/integration/gateway/test_web_page.py) runs in it"
}

case "${1:-ensure}" in
  ensure) ensure ;;
  path) find_chromium ;;
  *) echo "usage: $0 ensure|path" >&2; exit 2 ;;
esac
