#!/usr/bin/env bash
# The wiring linters on one rendered overlay: kube-score (settings: kube-score.yaml) and
# check-wiring.py (settings: wiring.yaml). Both run; exits 1 if either finds a problem.
#   usage: lint-overlay.sh OVERLAY RENDERED.yaml PUBLIC_PATHS.json
# Needs $TOOLS (scripts/ci/validate-deploy.sh's .data/tools: bin/kube-score, venv).
set -uo pipefail
HERE="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
overlay=$1 rendered=$2 paths=$3
: "${TOOLS:?TOOLS must point at .data/tools}"
status=0
"$TOOLS/venv/bin/python" "$HERE/kube-score.py" "$TOOLS/bin/kube-score" "$rendered" || status=1
"$TOOLS/venv/bin/python" "$HERE/check-wiring.py" --overlay "$overlay" --public-paths "$paths" "$rendered" || status=1
exit "$status"
