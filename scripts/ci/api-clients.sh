#!/usr/bin/env bash
# The API as its clients meet it (issue 11), against the whole system running
# on the local stack (services as child processes behind the gateway):
#   1. the served OpenAPI document passes Redocly lint (recommended rules) with no errors;
#   2. clients generated with openapi-python-client and @hey-api/openapi-ts (zod
#      validation on) each run the walkthrough: register -> key -> get -> submit ->
#      get with geometry -> list -> cancel -> webhook create;
#   3. schemathesis fuzzes every operation with an operator key and with an admin
#      key, every check on, a fixed number of examples from a fixed seed; any 5xx,
#      undocumented status or response that breaks its schema fails the run.
# Tools come from PyPI and npm at pinned versions into .data/tools/ (kept between
# runs); each step's output goes to .data/ci/api-clients/ and is shown only when
# the step fails. Exits non-zero on the first failure.
set -euo pipefail

ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

OPENAPI_PYTHON_CLIENT_VERSION=0.29.1
SCHEMATHESIS_VERSION=4.32.5
# 0.90 is the last line that runs on Node 20 (later ones need Node 22).
HEY_API_VERSION=0.90.0
ZOD_VERSION=4.6.7
TYPESCRIPT_VERSION=5.9.3
REDOCLY_VERSION=2.11.0
# Per operation and key; both keys take about three minutes. No time bound: with one,
# schemathesis repeats its phases until the time is up, so what a run tries depends on the
# machine's speed, and its repeated coverage passes once ended in an error of its own in CI
# that no run here reproduced. A fixed count from a fixed seed does the same work on any machine
# (the cases differ only where the generator reacts to answers carrying fresh ids).
FUZZ_EXAMPLES="${API_CLIENTS_FUZZ_EXAMPLES:-25}"

TOOLS="$ROOT/.data/tools"
WORK="$ROOT/.data/ci/api-clients"
SCRIPTS="$ROOT/scripts/ci/api-clients"
TSX="$ROOT/node_modules/.bin/tsx"

say() { printf '[api-clients] %s\n' "$*"; }
die() { printf '[api-clients] ERROR: %s\n' "$*" >&2; exit 1; }

# The part of a failed step's log that says why: schemathesis's ERRORS / FAILURES sections when
# there are any (its warnings and summary follow them and would push them out of a plain tail),
# otherwise the last lines.
explain_failure() {
  local log="$1" from
  from="$(grep -n -m1 -E '^=+ (ERRORS|FAILURES) =+$' "$log" | cut -d: -f1 || true)"
  if [[ -n "$from" ]]; then
    tail -n "+$from" "$log" | head -n 300
  else
    tail -n 80 "$log"
  fi
}

# Runs a step quietly; on failure shows why and stops.
run_step() {
  local name="$1"
  shift
  local log="$WORK/$name.log"
  if ! "$@" >"$log" 2>&1; then
    printf '[api-clients] FAILED: %s (from %s)\n' "$name" "${log#"$ROOT/"}" >&2
    explain_failure "$log" >&2
    exit 1
  fi
}

[[ -x "$TSX" ]] || die "tsx not found in node_modules (run 'npm ci' first)"
command -v python3 >/dev/null 2>&1 || die "python3 is needed (openapi-python-client, schemathesis)"
rm -rf "$WORK"
mkdir -p "$WORK" "$TOOLS"

# --- tools (pinned; reinstalled only when a pin changes) -----------------------
install_python_tools() {
  local venv="$TOOLS/api-clients-venv"
  local pins="openapi-python-client==$OPENAPI_PYTHON_CLIENT_VERSION schemathesis==$SCHEMATHESIS_VERSION"
  if [[ "$(cat "$venv/.pins" 2>/dev/null)" != "$pins" ]]; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check $pins
    echo "$pins" >"$venv/.pins"
  fi
}

install_node_tool() {
  local dir="$1"
  shift
  if [[ "$(cat "$dir/.pins" 2>/dev/null)" != "$*" ]]; then
    rm -rf "$dir"
    mkdir -p "$dir"
    echo '{ "private": true, "type": "module" }' >"$dir/package.json"
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "$@")
    echo "$*" >"$dir/.pins"
  fi
}

run_step tools-python install_python_tools
run_step tools-hey-api install_node_tool "$TOOLS/hey-api" "@hey-api/openapi-ts@$HEY_API_VERSION" "zod@$ZOD_VERSION" "typescript@$TYPESCRIPT_VERSION"
run_step tools-redocly install_node_tool "$TOOLS/redocly" "@redocly/cli@$REDOCLY_VERSION"
PY="$TOOLS/api-clients-venv/bin"

# --- the system -------------------------------------------------------------------
if [[ -z "${MONGO_URL:-}" || -z "${AMQP_URL:-}" ]]; then
  run_step stack bash "$ROOT/scripts/stack.sh" up
  eval "$(bash "$ROOT/scripts/stack.sh" env)"
  export MONGO_URL AMQP_URL
fi

SYSTEM_PID=""
stop_system() {
  if [[ -n "$SYSTEM_PID" ]] && kill -0 "$SYSTEM_PID" 2>/dev/null; then
    kill -TERM "$SYSTEM_PID" 2>/dev/null || true
    wait "$SYSTEM_PID" 2>/dev/null || true
  fi
}
trap stop_system EXIT

"$TSX" "$SCRIPTS/run-system.ts" "$WORK/system.json" >"$WORK/system.log" 2>&1 &
SYSTEM_PID=$!
for _ in $(seq 1 120); do
  [[ -s "$WORK/system.json" ]] && break
  kill -0 "$SYSTEM_PID" 2>/dev/null || { tail -n 40 "$WORK/system.log" >&2; die "the system did not start"; }
  sleep 1
done
[[ -s "$WORK/system.json" ]] || die "the system did not start within 120 s"
GATEWAY="$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).gatewayUrl)' "$WORK/system.json")"
ADMIN_KEY="$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).adminKey)' "$WORK/system.json")"
run_step document curl -fsS -o "$WORK/openapi.json" "$GATEWAY/api/openapi.json"

# --- 1. lint --------------------------------------------------------------------------
run_step redocly "$TOOLS/redocly/node_modules/.bin/redocly" lint "$WORK/openapi.json" --format=stylish

# --- 2. generated clients ---------------------------------------------------------------
mkdir -p "$WORK/python"
printf 'post_hooks: []\n' >"$WORK/python/config.yaml"
run_step python-generate "$PY/openapi-python-client" generate --path "$WORK/openapi.json" --meta none \
  --output-path "$WORK/python/dfc_client" --config "$WORK/python/config.yaml"
run_step python-walkthrough env PYTHONPATH="$WORK/python" "$PY/python" "$SCRIPTS/walkthrough.py" "$GATEWAY"

# The generated TypeScript client sits beside the tool's node_modules (zod) it imports.
TS_DIR="$TOOLS/hey-api"
rm -rf "$TS_DIR/client" "$TS_DIR/walkthrough.mts"
cat >"$TS_DIR/openapi-ts.config.mjs" <<EOF
export default {
  input: '$WORK/openapi.json',
  output: 'client',
  plugins: ['@hey-api/client-fetch', { name: 'zod', dates: { offset: true } }, { name: '@hey-api/sdk', validator: true }],
};
EOF
run_step typescript-generate bash -c "cd '$TS_DIR' && node_modules/.bin/openapi-ts"
cp "$SCRIPTS/walkthrough.mts" "$TS_DIR/walkthrough.mts"
run_step typescript-typecheck bash -c "cd '$TS_DIR' && node_modules/.bin/tsc --noEmit --strict --skipLibCheck \
  --module nodenext --moduleResolution nodenext --target es2022 --typeRoots '$ROOT/node_modules/@types' --types node walkthrough.mts"
run_step typescript-walkthrough bash -c "cd '$TS_DIR' && '$TSX' walkthrough.mts '$GATEWAY'"

# --- 3. fuzzing -------------------------------------------------------------------------
OPERATOR_KEY="$(node "$SCRIPTS/operator-key.mjs" "$GATEWAY")" || die "could not register an operator for the fuzzer"
fuzz() {
  local who="$1" key="$2"
  # From the work directory: schemathesis keeps its cache of failures in the current one.
  cd "$WORK"
  "$PY/st" --config-file "$SCRIPTS/schemathesis.toml" run "$WORK/openapi.json" --url "$GATEWAY" \
    --checks all \
    --header "X-API-Key: $key" \
    --phases examples,coverage,fuzzing \
    --max-examples "$FUZZ_EXAMPLES" \
    --workers 2 --request-timeout 20 \
    --suppress-health-check all --generation-database none --seed 1 \
    --exclude-path /api/zones/import \
    --no-color --report junit --report-junit-path "$WORK/schemathesis-$who.xml"
}
# The zone import's ED-269 document schema makes schemathesis 4.32's generator fail inside itself
# (a flaky Hypothesis error, not an answer of ours); the import is covered by the zone tests.
run_step schemathesis-operator fuzz operator "$OPERATOR_KEY"
run_step schemathesis-admin fuzz admin "$ADMIN_KEY"

say "ok: Redocly lint, python and typescript clients' walkthroughs, schemathesis (operator and admin keys) against $GATEWAY"
