#!/usr/bin/env bash
# deploy/k8s/croupier.yaml is the chart rendered with its default values: the same objects
# for `kubectl apply -k deploy/k8s` without Helm. Run this after changing charts/croupier;
# tests/test_deploy_manifests.py fails while the file is stale.
#
#   deploy/k8s/render.sh [OUTPUT]     (default: deploy/k8s/croupier.yaml)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUTPUT="${1:-${ROOT}/deploy/k8s/croupier.yaml}"
HELM="$("${ROOT}/deploy/local/tools.sh" path helm)"

{
  echo "# Rendered from charts/croupier with its default values by deploy/k8s/render.sh:"
  echo "# do not edit, change the chart and run the script."
  "${HELM}" template croupier "${ROOT}/charts/croupier"
} >"${OUTPUT}"
