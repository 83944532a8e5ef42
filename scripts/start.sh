#!/usr/bin/env bash
# `npm start`: run the whole system locally, as the image runs it.
#   1. start the local stack (MongoDB-compatible DB + RabbitMQ, scripts/stack.sh up)
#   2. create the internal-token Ed25519 key pair once (.data/keys/, mode 600)
#   3. compile what changed (`npm run build:services`: `tsc -b`, incremental, only the
#      workspaces whose sources changed are rebuilt), build the indexes (index
#      migration), start the four compiled services as children (`node
#      --conditions=compiled`, the image's entry point, on the node of the PATH: Node 24,
#      `source scripts/use-node.sh`), output prefixed with their name
#   4. wait for the gateway's /healthz, load sample zones (if the loader exists)
# Ctrl-C / SIGTERM stops all four services.
#
# `npm run dev` (`scripts/start.sh --watch`) is the development mode instead: no build,
# each service runs its TypeScript sources under `tsx watch` and restarts when one of
# the files it imports changes.
#
# The stack (database + broker) is deliberately left running when this script
# exits: it is shared with `npm test` and keeps start-up fast. Stop it with
# `npm run stack down`.
set -euo pipefail

ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

log() { printf '[start] %s\n' "$*"; }
die() { printf '[start] ERROR: %s\n' "$*" >&2; exit 1; }

port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" >/dev/null 2>&1; }

TSX="$ROOT/node_modules/.bin/tsx"
[[ -x "$TSX" ]] || die "tsx not found in node_modules (run 'npm ci' first)"
[[ "$(node -p 'process.versions.node.split(".")[0]')" == "$(cat "$ROOT/.node-version")" ]] \
  || log "WARNING: node $(node --version) is not the image's Node $(cat "$ROOT/.node-version") (source scripts/use-node.sh)"

WATCH=0
case "${1:-}" in
  --watch) WATCH=1 ;;
  "") ;;
  *) die "unknown argument '$1' (the only one is --watch)" ;;
esac

# --- 1. stack ---------------------------------------------------------------
bash "$ROOT/scripts/stack.sh" up || die "could not start the local stack (scripts/stack.sh up)"
eval "$(bash "$ROOT/scripts/stack.sh" env)"
# Every process reads the broker; the database only those that own one (start_service passes it).
export AMQP_URL
export -n MONGO_URL

# --- 2. keys & secrets ------------------------------------------------------
KEY_DIR="$ROOT/.data/keys"
PRIV="$KEY_DIR/internal-token-ed25519.key.pem"
PUB="$KEY_DIR/internal-token-ed25519.pub.pem"
if [[ ! -s "$PRIV" || ! -s "$PUB" ]]; then
  log "generating the internal-token Ed25519 key pair in ${KEY_DIR#"$ROOT/"}/"
  mkdir -p "$KEY_DIR"
  chmod 700 "$KEY_DIR"
  node -e '
    const { generateKeyPairSync } = require("node:crypto");
    const fs = require("node:fs");
    const { privateKey, publicKey } = generateKeyPairSync("ed25519", {
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    });
    fs.writeFileSync(process.argv[1], privateKey, { mode: 0o600 });
    fs.writeFileSync(process.argv[2], publicKey, { mode: 0o600 });
  ' "$PRIV" "$PUB" || die "could not generate the internal-token key pair"
fi
chmod 600 "$PRIV" "$PUB"
INTERNAL_TOKEN_PRIVATE_KEY="$(cat "$PRIV")"
INTERNAL_TOKEN_PUBLIC_KEY="$(cat "$PUB")"

# Ed25519 key that signs flight authorisations (its public half is served at /.well-known/jwks.json):
# generated once and kept, so tokens handed out earlier keep verifying across restarts.
AUTH_KEY="$KEY_DIR/authorisation-ed25519.key.pem"
if [[ -z "${AUTHORISATION_SIGNING_KEY:-}${AUTHORISATION_SIGNING_KEY_FILE:-}" ]]; then
  if [[ ! -s "$AUTH_KEY" ]]; then
    log "generating the authorisation signing key in ${AUTH_KEY#"$ROOT/"}"
    node -e '
      const { generateKeyPairSync } = require("node:crypto");
      const { privateKey } = generateKeyPairSync("ed25519", { privateKeyEncoding: { type: "pkcs8", format: "pem" } });
      require("node:fs").writeFileSync(process.argv[1], privateKey, { mode: 0o600 });
    ' "$AUTH_KEY" || die "could not generate the authorisation signing key"
  fi
  chmod 600 "$AUTH_KEY"
  AUTHORISATION_SIGNING_KEY_FILE="$AUTH_KEY"
fi

# Must match the API key format (dfc_<16 hex>_<43 base64url chars>) that operator-service validates.
# AES-256-GCM key for webhook signing secrets at rest: generated once and kept, because
# secrets stored with it cannot be read with another key.
WEBHOOK_KEY_FILE="$KEY_DIR/webhook-secret.key"
if [[ -z "${WEBHOOK_SECRET_KEY:-}" ]]; then
  if [[ ! -s "$WEBHOOK_KEY_FILE" ]]; then
    log "generating WEBHOOK_SECRET_KEY in ${WEBHOOK_KEY_FILE#"$ROOT/"}"
    node -e '
      require("node:fs").writeFileSync(process.argv[1],
        require("node:crypto").randomBytes(32).toString("base64") + "\n", { mode: 0o600 });
    ' "$WEBHOOK_KEY_FILE" || die "could not generate WEBHOOK_SECRET_KEY"
  fi
  chmod 600 "$WEBHOOK_KEY_FILE"
  WEBHOOK_SECRET_KEY="$(tr -d '[:space:]' <"$WEBHOOK_KEY_FILE")"
fi

DEV_ADMIN_KEY="dfc_00000000000000ad_local-development-admin-key-change-me-00000"
if [[ -z "${ADMIN_API_KEY:-}" ]]; then
  ADMIN_API_KEY="$DEV_ADMIN_KEY"
  log "WARNING: ADMIN_API_KEY is not set; using the DEVELOPMENT DEFAULT admin key:"
  log "WARNING:   $ADMIN_API_KEY"
  log "WARNING: never use this key outside local development (set ADMIN_API_KEY)."
fi
# Local development: let webhooks reach receivers on this machine (loopback only: 127.0.0.0/8 and ::1,
# over plain http). Private, link-local and cloud-metadata addresses stay refused whatever this says.
ALLOW_HTTP_WEBHOOKS="${ALLOW_HTTP_WEBHOOKS:-true}"

GATEWAY_PORT="${GATEWAY_PORT:-8080}"
GATEWAY_METRICS_PORT="${GATEWAY_METRICS_PORT:-9464}"
OPERATOR_SERVICE_PORT="${OPERATOR_SERVICE_PORT:-8081}"
FLIGHT_REQUEST_SERVICE_PORT="${FLIGHT_REQUEST_SERVICE_PORT:-8082}"
WEBHOOK_SERVICE_PORT="${WEBHOOK_SERVICE_PORT:-8083}"

# Each process gets its own secrets and settings alone (as compose and k8s give them), and no process
# a variable it does not read: whatever of these the caller's environment holds stays with this script.
SCOPED=(INTERNAL_TOKEN_PRIVATE_KEY INTERNAL_TOKEN_PUBLIC_KEY AUTHORISATION_SIGNING_KEY AUTHORISATION_SIGNING_KEY_FILE
  WEBHOOK_SECRET_KEY ADMIN_API_KEY ALLOW_HTTP_WEBHOOKS ALLOW_LOOPBACK_WEBHOOK_TARGETS
  GATEWAY_PORT GATEWAY_METRICS_PORT OPERATOR_SERVICE_PORT FLIGHT_REQUEST_SERVICE_PORT WEBHOOK_SERVICE_PORT)
export -n "${SCOPED[@]}"
own_env() { # name: the NAME=value pairs of that process alone, NUL-separated
  case "$1" in
    gateway)
      printf '%s\0' "INTERNAL_TOKEN_PRIVATE_KEY=$INTERNAL_TOKEN_PRIVATE_KEY" "METRICS_PORT=$GATEWAY_METRICS_PORT" \
        "RATE_LIMIT_MONGO_URL=$MONGO_URL" "RATE_LIMIT_MONGO_DB=dfc_gateway" \
        "OPERATOR_SERVICE_URL=http://127.0.0.1:$OPERATOR_SERVICE_PORT" \
        "FLIGHT_REQUEST_SERVICE_URL=http://127.0.0.1:$FLIGHT_REQUEST_SERVICE_PORT" \
        "WEBHOOK_SERVICE_URL=http://127.0.0.1:$WEBHOOK_SERVICE_PORT" ;;
    operator-service) printf '%s\0' "INTERNAL_TOKEN_PUBLIC_KEY=$INTERNAL_TOKEN_PUBLIC_KEY" "ADMIN_API_KEY=$ADMIN_API_KEY" ;;
    flight-request-service)
      printf '%s\0' "INTERNAL_TOKEN_PUBLIC_KEY=$INTERNAL_TOKEN_PUBLIC_KEY"
      if [[ -n "${AUTHORISATION_SIGNING_KEY:-}" ]]; then printf '%s\0' "AUTHORISATION_SIGNING_KEY=$AUTHORISATION_SIGNING_KEY"
      else printf '%s\0' "AUTHORISATION_SIGNING_KEY_FILE=$AUTHORISATION_SIGNING_KEY_FILE"; fi ;;
    webhook-service)
      printf '%s\0' "INTERNAL_TOKEN_PUBLIC_KEY=$INTERNAL_TOKEN_PUBLIC_KEY" "WEBHOOK_SECRET_KEY=$WEBHOOK_SECRET_KEY" \
        "ALLOW_LOOPBACK_WEBHOOK_TARGETS=true" "ALLOW_HTTP_WEBHOOKS=$ALLOW_HTTP_WEBHOOKS" ;;
  esac
}

for p in "$GATEWAY_PORT" "$GATEWAY_METRICS_PORT" "$OPERATOR_SERVICE_PORT" "$FLIGHT_REQUEST_SERVICE_PORT" "$WEBHOOK_SERVICE_PORT"; do
  port_open "$p" && die "port $p is already in use (another 'npm start' running?)"
done

# --- 3. services ------------------------------------------------------------
if ((!WATCH)); then
  log "compiling (npm run build:services: tsc -b, only what changed since the last build)"
  npm run --silent build:services || die "the build failed (see above)"
fi

# The command that runs a service's entry point (main or migrate): the compiled JavaScript as
# in the image (its ENTRYPOINT: the "compiled" condition resolves the workspace packages to
# dist/) with node's options as a pod's (e2e/src/system.ts, POD_NODE_OPTIONS: the manifests' heap
# limit and V8 pool size, and the young generation V8 sizes for their 512 MiB memory limit, which a
# process here does not see), or in watch mode its sources under tsx.
entry() { # name main|migrate
  if ((WATCH)) && [[ "$2" == main ]]; then
    printf '%s\0' "$TSX" watch "services/$1/src/$2.ts"
  elif ((WATCH)); then
    printf '%s\0' "$TSX" "services/$1/src/$2.ts"
  else
    printf '%s\0' node --max-old-space-size=256 --max-semi-space-size=1 --v8-pool-size=1 --conditions=compiled "services/$1/dist/$2.js"
  fi
}

declare -a PIDS=() NAMES=()
STOPPING=0

stop_all() {
  ((STOPPING)) && return 0
  STOPPING=1
  ((${#PIDS[@]})) || return 0
  log "stopping services ..."
  local pid i alive
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for ((i = 0; i < 100; i++)); do # up to 20s for graceful shutdown
    alive=0
    for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || break
    sleep 0.2
  done
  for i in "${!PIDS[@]}"; do
    if kill -0 "${PIDS[$i]}" 2>/dev/null; then
      log "${NAMES[$i]} did not stop within 20s; killing it"
    fi
    # Each service runs in its own process group (setsid): make sure nothing is left.
    kill -KILL -- "-${PIDS[$i]}" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  log "all services stopped (the stack is still running; 'npm run stack down' stops it)"
}
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM
trap 'stop_all' EXIT

start_service() { # name port mongo_db
  local name="$1" port="$2" db="$3"
  # node (or tsx) is started directly rather than through npm or npx: they do not pass SIGTERM
  # on, which would leave orphaned services behind. setsid: own process group, so a
  # terminal Ctrl-C reaches only this script, which then stops the services in order.
  local -a vars=("PORT=$port") own command
  [[ -n "$db" ]] && vars+=("MONGO_URL=$MONGO_URL" "MONGO_DB=$db")
  mapfile -d '' own < <(own_env "$name")
  vars+=("${own[@]}")
  mapfile -d '' command < <(entry "$name" main)
  env "${vars[@]}" setsid "${command[@]}" \
    </dev/null > >(awk -v p="[$name] " '{ print p $0; fflush() }') 2>&1 &
  PIDS+=("$!")
  NAMES+=("$name")
  log "started $name (pid $!) on port $port"
}

# The index migration (the migrate Jobs in k8s): services only verify their indexes at start.
migrate() { # name mongo_db
  local -a command
  mapfile -d '' command < <(entry "$1" migrate)
  if ! MONGO_URL="$MONGO_URL" MONGO_DB="$2" "${command[@]}" </dev/null 2>&1 | awk -v p="[$1-migrate] " '{ print p $0; fflush() }'; then
    die "index migration of $1 failed (see above)"
  fi
}
migrate operator-service dfc_operators
migrate flight-request-service dfc_flight_requests
migrate webhook-service dfc_webhooks

# The web console the gateway serves at /console: built once (npm run build rebuilds it).
if [[ ! -s apps/console/dist/index.html ]]; then
  log "building the web console (apps/console -> dist/)"
  npm run --silent build -w @dfc/console || die "the console build failed"
fi

start_service operator-service "$OPERATOR_SERVICE_PORT" dfc_operators
start_service flight-request-service "$FLIGHT_REQUEST_SERVICE_PORT" dfc_flight_requests
start_service webhook-service "$WEBHOOK_SERVICE_PORT" dfc_webhooks
start_service gateway "$GATEWAY_PORT" ""

# --- 4. readiness -----------------------------------------------------------
# Ready = every service's /readyz (its Mongo/broker connections are up) and the
# gateway's /healthz answer 200.
healthy() {
  node -e '
    Promise.all(process.argv.slice(1).map((url) =>
      fetch(url, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false),
    )).then((oks) => process.exit(oks.every(Boolean) ? 0 : 1));
  ' "http://127.0.0.1:$OPERATOR_SERVICE_PORT/readyz" \
    "http://127.0.0.1:$FLIGHT_REQUEST_SERVICE_PORT/readyz" \
    "http://127.0.0.1:$WEBHOOK_SERVICE_PORT/readyz" \
    "http://127.0.0.1:$GATEWAY_PORT/readyz" \
    "http://127.0.0.1:$GATEWAY_PORT/healthz"
}

READY_TIMEOUT="${START_READY_TIMEOUT:-120}"
deadline=$((SECONDS + READY_TIMEOUT))
until healthy; do
  for i in "${!PIDS[@]}"; do
    kill -0 "${PIDS[$i]}" 2>/dev/null || die "${NAMES[$i]} exited during start-up (see its output above)"
  done
  ((SECONDS < deadline)) || die "services not ready after ${READY_TIMEOUT}s (gateway: http://127.0.0.1:$GATEWAY_PORT/healthz)"
  sleep 0.5
done

ZONES="services/flight-request-service/scripts/load-sample-zones.ts"
if [[ -f "$ZONES" ]]; then
  log "loading sample zones ($ZONES)"
  GATEWAY_URL="http://127.0.0.1:$GATEWAY_PORT" ADMIN_API_KEY="$ADMIN_API_KEY" "$TSX" "$ZONES" 2>&1 \
    | awk '{ print "[load-sample-zones] " $0; fflush() }' \
    || log "WARNING: loading sample zones failed (see above); continuing"
fi

log "ready on http://127.0.0.1:$GATEWAY_PORT"

# --- run until a service exits or we are told to stop -----------------------
set +e
wait -n "${PIDS[@]}"
rc=$?
set -e
if ((!STOPPING)); then
  for i in "${!PIDS[@]}"; do
    kill -0 "${PIDS[$i]}" 2>/dev/null || log "ERROR: ${NAMES[$i]} exited unexpectedly (status $rc); stopping the others"
  done
  stop_all
  exit $((rc == 0 ? 1 : rc))
fi
