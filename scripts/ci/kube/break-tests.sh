#!/usr/bin/env bash
# Regression test of the wiring linters: each break below is a mistake an SRE made (or could make)
# in the manifests that schema validation lets through. Each is applied to a copy of a rendered
# overlay, lint-overlay.sh runs on the copy, and the test fails if the linters pass it or fail
# without naming it. The unbroken copy must pass first.
#   usage: break-tests.sh [RENDERED_DIR]    (default .data/validate-deploy, as validate-deploy.sh leaves it)
# Needs $TOOLS like lint-overlay.sh; scripts/ci/validate-deploy.sh runs it after the real checks.
set -euo pipefail
HERE="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd -- "$HERE/../../.." && pwd)"
RENDERED="${1:-$ROOT/.data/validate-deploy}"
export TOOLS="${TOOLS:-$ROOT/.data/tools}"
PATHS="$RENDERED/public-paths.json"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

log() { printf '[break-tests] %s\n' "$*"; }

# edit OVERLAY KIND NAME OLD NEW: a copy of the overlay's rendered YAML in which the first OLD of
# the KIND/NAME document (exact text, lines included) becomes NEW. Prints the copy's path.
edit() {
  local overlay=$1 out="$WORK/overlays-$1.yaml"
  "$TOOLS/venv/bin/python" - "$RENDERED/overlays-$overlay.yaml" "$out" "${@:2}" <<'PY'
import re, sys
source, out, kind, name, old, new = sys.argv[1:7]
docs = re.split(r"(?m)^---\n", open(source).read())
hits = [i for i, d in enumerate(docs) if re.search(rf"(?m)^kind: {re.escape(kind)}$", d) and re.search(rf"(?m)^  name: {re.escape(name)}$", d)]
if len(hits) != 1 or old not in docs[hits[0]]:
    sys.exit(f"break-tests: {kind}/{name} with {old!r} not found once in {source}: fix the break, not the linters")
docs[hits[0]] = docs[hits[0]].replace(old, new, 1)
open(out, "w").write("---\n".join(docs))
PY
  echo "$out"
}

failures=0
# expect NAME OVERLAY COPY PATTERN...: lint-overlay.sh fails on COPY and its output matches every PATTERN.
expect() {
  local name=$1 overlay=$2 copy=$3 output pattern missing=()
  shift 3
  if output="$("$HERE/lint-overlay.sh" "$overlay" "$copy" "$PATHS" 2>&1)"; then
    log "FAIL $name: the linters passed it"
    failures=$((failures + 1))
    return
  fi
  for pattern in "$@"; do grep -Eq -- "$pattern" <<<"$output" || missing+=("$pattern"); done
  if ((${#missing[@]})); then
    log "FAIL $name: the linters failed without the expected finding(s): ${missing[*]}"
    printf '%s\n' "$output" | sed 's/^/    /'
    failures=$((failures + 1))
    return
  fi
  log "ok   $name"
  grep -Ev ' accepted \[' <<<"$output" | cut -c1-240 | sed 's/^/       /'
}

for overlay in production self-hosted; do
  "$HERE/lint-overlay.sh" "$overlay" "$RENDERED/overlays-$overlay.yaml" "$PATHS" >/dev/null \
    || { log "the unbroken overlay $overlay fails the linters: run scripts/ci/validate-deploy.sh"; exit 1; }
done

# (a) A typo in a Service's selector: the Service has no endpoints.
expect "(a) Service selector typo" production \
  "$(edit production Service operator-service $'selector:\n    app.kubernetes.io/name: operator-service' $'selector:\n    app.kubernetes.io/name: operator-servce')" \
  'operator-service/dfc v1/Service: The services selector does not match any pods' \
  '\[service-selector\] Service/operator-service'

# (b) The ServiceMonitor's endpoint names a port no Service has: nothing is scraped, every alert goes quiet.
expect "(b) ServiceMonitor port name" production \
  "$(edit production ServiceMonitor dfc 'port: metrics' 'port: metric')" \
  "\[servicemonitor-port\] ServiceMonitor/dfc: endpoint 0: port 'metric' is not a port name of Service/gateway"

# (c) A typo in a NetworkPolicy's podSelector: the gateway loses its allow rules and default-deny cuts it off.
expect "(c) NetworkPolicy podSelector typo" production \
  "$(edit production NetworkPolicy gateway $'  podSelector:\n    matchLabels:\n      app.kubernetes.io/name: gateway' $'  podSelector:\n    matchLabels:\n      app.kubernetes.io/name: gatway')" \
  "gateway/dfc networking.k8s.io/v1/NetworkPolicy: The NetworkPolicys selector doesn't match any pods" \
  '\[networkpolicy-selector\] NetworkPolicy/gateway'

# (c') A typo in a NetworkPolicy peer: the services refuse the gateway's calls.
expect "(c') NetworkPolicy peer podSelector typo" self-hosted \
  "$(edit self-hosted NetworkPolicy services-from-gateway 'app.kubernetes.io/name: gateway' 'app.kubernetes.io/name: gateways')" \
  '\[networkpolicy-peer\] NetworkPolicy/services-from-gateway'

# (d) The Ingress path changed to /api/v1: the /api/... routes (the documented paths) are no longer public.
expect "(d) Ingress path changed" production \
  "$(edit production Ingress gateway 'path: /api' 'path: /api/v1')" \
  '\[ingress-public-path\] Ingress: [0-9]+ public path\(s\) routed by no Ingress rule: /api/api-keys, '

# (d') The Ingress backend names a port the Service does not have.
expect "(d') Ingress backend port" production \
  "$(edit production Ingress gateway 'name: http' 'name: https')" \
  'Ingress: .*No service match was found' \
  "\[ingress-backend\] Ingress/gateway api.example.org/api: backend Service 'gateway' has no port 'https'"

# (e) A Service's targetPort names no container port: the endpoints exist but refuse connections.
expect "(e) Service targetPort name" self-hosted \
  "$(edit self-hosted Service webhook-service 'targetPort: http' 'targetPort: metrics')" \
  "\[service-target-port\] Service/webhook-service: port http: targetPort 'metrics' is not a container port name"

# (f) The managed database's port changed in the rendered overlay (a patch that wins over
# data-services.yaml, a typo): the services cannot reach the database they are configured for.
expect "(f) managed database egress port" production \
  "$(edit production NetworkPolicy database-egress-managed 'port: 27017' 'port: 27018')" \
  '\[data-egress\] Deployment/operator-service: cannot reach the configured data service\(s\) 10\.200\.0\.0/24:27017; may reach 10\.200\.0\.0/24:27018'

# (g) The database egress leaves a migration out: the migration cannot reach the database.
expect "(g) managed database egress selects the wrong pods" production \
  "$(edit production NetworkPolicy database-egress-managed '      - operator-service-migrate' '      - operator-service')" \
  '\[data-egress\] Job/operator-service-migrate: cannot reach the configured data service\(s\) 10\.200\.0\.0/24:27017'

# (h) The self-hosted overlay keeps production's managed broker egress open.
expect "(h) self-hosted keeps the managed egress" self-hosted \
  "$(edit self-hosted NetworkPolicy broker-egress-managed 'egress: []' $'egress:\n  - ports:\n    - port: 5671\n      protocol: TCP\n    to:\n    - ipBlock:\n        cidr: 10.201.0.0/24')" \
  '\[data-egress\] Deployment/gateway: may reach 10\.201\.0\.0/24:5671, which it does not use or the overlay does not configure \(none\)'

# (i) The production image by tag again: a re-pushed tag changes what the nodes run.
expect "(i) image by tag" production \
  "$(edit production Deployment gateway "$(grep -o -m1 '@sha256:[0-9a-f]*' "$RENDERED/overlays-production.yaml")" '')" \
  "\[image-digest\] Deployment/gateway: container gateway: image 'registry.example.org/dfc/service:1.0.0' is not pinned by digest"

# (j) The webhook-service autoscaler reads a metric the service does not export: it never scales out.
expect "(j) HPA on an unknown metric" production \
  "$(edit production HorizontalPodAutoscaler webhook-service 'name: webhook_attempts_waiting' 'name: webhook_attempt_waiting')" \
  "\[hpa-metric\] HorizontalPodAutoscaler/webhook-service: External metric 'webhook_attempt_waiting' is not one a service exports"

# (k) The migrations back in PreSync: a first install runs them before dfc-config exists.
expect "(k) migration Job as a PreSync hook" production \
  "$(edit production Job operator-service-migrate 'argocd.argoproj.io/hook: Sync' 'argocd.argoproj.io/hook: PreSync')" \
  '\[sync-order\] Job/operator-service-migrate: PreSync wave 1 reads ConfigMap dfc-config, applied at Sync wave 0, not before it'

# (l) A Deployment without its wave: Argo CD would roll it out alongside its migration.
expect "(l) Deployment before its migration" production \
  "$(edit production Deployment webhook-service 'argocd.argoproj.io/sync-wave: "2"' 'argocd.argoproj.io/sync-wave: "1"')" \
  '\[sync-order\] Deployment/webhook-service: Sync wave 1 is not after Job/webhook-service-migrate \(Sync wave 1\)'

if ((failures)); then
  log "$failures break(s) got past the linters"
  exit 1
fi
log "every break is caught"
