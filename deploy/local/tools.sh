#!/usr/bin/env bash
# The deployment checks' tools, built from the Go module proxy at pinned versions into
# the repository's .local/tools/ (git-ignored): no system install, no download site.
#
#   deploy/local/tools.sh ensure        build every tool that is missing (idempotent; a few
#                                       minutes per tool the first time, instant after)
#   deploy/local/tools.sh path NAME     print NAME's binary path (exit 1 if not built)
#
# Tools: helm (chart lint and rendering), buf (protos lint and breaking-change check),
# promtool (Prometheus rules check and unit tests). A version bump is a new folder, so an
# old binary is never taken for a new one. Needs `go` (1.26 or newer) on PATH.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TOOLS="${ROOT}/.local/tools"

# name  module path of the main package  version
PINNED=(
  "helm helm.sh/helm/v4/cmd/helm v4.3.2"
  "buf github.com/bufbuild/buf/cmd/buf v1.75.0"
  "promtool github.com/prometheus/prometheus/cmd/promtool v0.316.0"
)

binary_of() {
  local name="$1" entry tool package version
  for entry in "${PINNED[@]}"; do
    read -r tool package version <<<"${entry}"
    if [[ "${tool}" == "${name}" ]]; then
      echo "${TOOLS}/${tool}-${version}/${tool}"
      return 0
    fi
  done
  echo "tools.sh: unknown tool ${name}" >&2
  return 2
}

ensure() {
  local entry tool package version target
  for entry in "${PINNED[@]}"; do
    read -r tool package version <<<"${entry}"
    target="${TOOLS}/${tool}-${version}"
    [[ -x "${target}/${tool}" ]] && continue
    if ! command -v go >/dev/null 2>&1; then
      echo "tools.sh: ${tool} ${version} is missing and building it needs Go (go on PATH)" >&2
      exit 1
    fi
    echo "tools.sh: building ${tool} ${version} (go install ${package}@${version}) into ${target}" >&2
    mkdir -p "${target}.partial"
    # CGO off: static binaries that do not depend on the machine's C library.
    CGO_ENABLED=0 GOBIN="${target}.partial" go install "${package}@${version}"
    rm -rf "${target}"
    mv "${target}.partial" "${target}"
  done
}

case "${1:-}" in
  ensure) ensure ;;
  path)
    path="$(binary_of "${2:?usage: tools.sh path NAME}")"
    [[ -x "${path}" ]] || { echo "tools.sh: ${2} is not built: run deploy/local/tools.sh ensure" >&2; exit 1; }
    echo "${path}"
    ;;
  *) echo "usage: $0 ensure | path NAME" >&2; exit 2 ;;
esac
