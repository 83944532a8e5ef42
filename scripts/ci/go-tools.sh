#!/usr/bin/env bash
# Command-line tools built from their Go modules into .data/tools/bin, once per version. Sourced by
# validate-deploy.sh, workloads.sh and backup-drill.sh; expects ROOT, log and die.
# 'go install …@version' needs the module's version list, which some proxies refuse: each module is
# fetched through a throwaway module instead (as scripts/stack.sh does for FerretDB).

GO_TOOLS="$ROOT/.data/tools"
# The kustomize that renders the overlays, wherever they are rendered.
KUSTOMIZE_VERSION=v5.7.1

# go_tool MODULE VERSION NAME=PACKAGE...: builds each PACKAGE of MODULE at VERSION into
# $GO_TOOLS/bin/NAME; <first NAME>.version records what was built. Returns 1, with the reason in
# $GO_TOOLS/<first NAME>-build.log, when the module cannot be had or does not build.
go_tool() {
  local module=$1 version=$2
  shift 2
  local first="${1%%=*}" spec built=1 status=0 work
  local stamp="$GO_TOOLS/bin/$first.version" build_log="$GO_TOOLS/$first-build.log"
  for spec in "$@"; do [[ -x "$GO_TOOLS/bin/${spec%%=*}" ]] || built=0; done
  if ((built)) && [[ "$(cat "$stamp" 2>/dev/null)" == "$module@$version" ]]; then return 0; fi
  mkdir -p "$GO_TOOLS/bin"
  command -v go >/dev/null 2>&1 || { echo "go is not installed" >"$build_log"; return 1; }
  log "building ${*%%=*} $version from its Go module (first run only)"
  work="$(mktemp -d)"
  # Each step chained: a caller's `||` turns errexit off in here.
  (
    cd "$work" && go mod init gotoolbuild >/dev/null 2>&1 || exit 1
    # Per package, not per module: `go get` records the dependencies of what it is given.
    for spec in "$@"; do go get "${spec#*=}@$version" || exit 1; done
    for spec in "$@"; do
      # The version where the tool prints it from: main.version (kube-score, kubeconform) or
      # main.VersionStr (mongo-tools); the linker ignores the one a tool lacks.
      CGO_ENABLED=0 go build -trimpath -ldflags "-X main.version=$version -X main.VersionStr=$version" \
        -o "$GO_TOOLS/bin/${spec%%=*}.tmp" "${spec#*=}" \
        && mv "$GO_TOOLS/bin/${spec%%=*}.tmp" "$GO_TOOLS/bin/${spec%%=*}" || exit 1
    done
  ) >"$build_log" 2>&1 || status=1
  rm -rf "$work"
  ((status == 0)) || return 1
  echo "$module@$version" >"$stamp"
}

# go_tool, or the end of its build log and die.
require_go_tool() {
  go_tool "$@" && return 0
  tail -n 20 "$GO_TOOLS/${3%%=*}-build.log" >&2
  die "could not build ${3%%=*} (${GO_TOOLS#"$ROOT/"}/${3%%=*}-build.log)"
}

require_kustomize() {
  require_go_tool sigs.k8s.io/kustomize/kustomize/v5 "$KUSTOMIZE_VERSION" kustomize=sigs.k8s.io/kustomize/kustomize/v5
}
