#!/usr/bin/env bash
# Proves scripts/ci/workloads.sh catches what it is for: each known mistake of
# scripts/ci/workloads/breaks.ts (a missing env entry, with a config error or a silent default; a
# wrong secret path or key; a Service selector or targetPort typo; a wrong probe port; a failing
# liveness probe) is applied to a copy of the rendered production overlay, and the run on that copy
# must fail, saying why. About 10 minutes (one run per case; two cases wait out a startup probe of
# 60 x 2 s). The output of each case is kept in .data/workloads-breaks/<case>.log.
#   bash scripts/ci/workloads/break-tests.sh                       # every case
#   WORKLOADS_BREAKS=missing-env,liveness-path bash scripts/ci/workloads/break-tests.sh
set -euo pipefail

ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$ROOT"
OUT="$ROOT/.data/workloads-breaks"
rm -rf "$OUT" && mkdir -p "$OUT"
log() { printf '[workloads-breaks] %s\n' "$*"; }

kustomize="$ROOT/.data/tools/bin/kustomize"
[[ -x "$kustomize" ]] || { log "no $kustomize: run scripts/ci/workloads.sh (or validate-deploy.sh) once"; exit 1; }
"$kustomize" build k8s/overlays/production >"$OUT/rendered.yaml"

failed=0
while IFS=$'\t' read -r name expect; do
  start=$SECONDS
  if WORKLOADS_MANIFESTS="$OUT/$name.yaml" bash scripts/ci/workloads.sh >"$OUT/$name.log" 2>&1; then
    log "FAIL $name: the run passed"
    failed=1
  elif ! grep -qF -- "$expect" "$OUT/$name.log"; then
    log "FAIL $name: the run failed, but its output lacks: $expect (see $OUT/$name.log)"
    failed=1
  else
    log "ok   $name: failed in $((SECONDS - start)) s: $(grep -m1 -E 'FAILED|ERROR: [^t]' "$OUT/$name.log" | cut -c1-220)"
  fi
done < <(node node_modules/.bin/tsx scripts/ci/workloads/breaks.ts "$OUT/rendered.yaml" "$OUT")
exit "$failed"
