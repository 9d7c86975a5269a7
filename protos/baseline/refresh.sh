#!/usr/bin/env bash
# The wire contract of the last release, as a buf image: tests/test_deploy_protos.py runs
# `buf breaking` against it, so a change that breaks a released client (a field renumbered,
# a method removed, ...) fails the tests. Run at each release, with the release's tag:
#
#   protos/baseline/refresh.sh v0.2.0      (default: HEAD, committed protos only)
#
# It builds protos/ as of that commit (not the work tree) into last-release.image.binpb and
# names the commit in last-release.txt; commit both.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
REF="${1:-HEAD}"
BUF="$("${ROOT}/deploy/local/tools.sh" path buf)"
WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT

git -C "${ROOT}" archive "${REF}" protos | tar -x -C "${WORK}"
(cd "${WORK}/protos" && "${BUF}" build --exclude-path baseline -o "${ROOT}/protos/baseline/last-release.image.binpb")
echo "${REF} $(git -C "${ROOT}" rev-parse "${REF}^{commit}")" >"${ROOT}/protos/baseline/last-release.txt"
