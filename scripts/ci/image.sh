#!/usr/bin/env bash
# The image, built and booted (issue 15, part 1): builds the one Dockerfile with podman, runs the
# three index migrations and the four services from it against the local stack (scripts/stack.sh,
# host network, ports 18080-18083, databases and exchange of their own), runs the README
# walkthrough (scripts/walkthrough.ts) through the containerised gateway, and prints the image
# size and each container's memory idle, after the walkthrough and after IMAGE_LOAD_SECONDS (30) of the
# cost bench's steady traffic (bench/image-load.ts; IMAGE_LOAD_SECONDS=600 for the performance page).
# A missing module, a missing env variable or a crash fails it: every container must still be
# running, never restarted, when the walkthrough ends.
#   bash scripts/ci/image.sh
set -euo pipefail

ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

log() { printf '[image] %s\n' "$*"; }
die() { printf '[image] ERROR: %s\n' "$*" >&2; exit 1; }

# shellcheck source=podman/lib.sh
source "$ROOT/scripts/ci/podman/lib.sh"

PREFIX=dfc-image-ci
ADMIN_API_KEY=dfc_0000000000000ac1_image-ci-admin-key-for-the-walkthrough-0000
SERVICES=(gateway operator-service flight-request-service webhook-service)
declare -A PORT=([gateway]=18080 [operator-service]=18081 [flight-request-service]=18082 [webhook-service]=18083)
declare -A DB=([operator-service]=dfc_image_ci_operators [flight-request-service]=dfc_image_ci_flight_requests [webhook-service]=dfc_image_ci_webhooks)
KEYS="$(mktemp -d)"
LOAD_SECONDS="${IMAGE_LOAD_SECONDS:-30}"
# As the pods run (k8s/base): their memory limit, V8's heap limit at half of it, one V8 background thread.
MEMORY_LIMIT=512m
NODE_OPTIONS_OF_PODS="--max-old-space-size=256 --v8-pool-size=1"

remove_containers() {
  local ids
  ids="$(podman ps -aq --filter "label=dfc.ci=$PREFIX")"
  [[ -z "$ids" ]] || podman rm -f -t 5 $ids >/dev/null
}

cleanup() {
  remove_containers
  rm -rf "$KEYS"
}
trap cleanup EXIT

show_logs_and_die() { # container message
  podman logs --tail 40 "$1" >&2 || true
  die "$2"
}

# Test keys, as files, as the Kubernetes Secrets mount them (readable by the service's uid).
make_keys() {
  node -e '
    const { generateKeyPairSync, randomBytes } = require("node:crypto");
    const fs = require("node:fs");
    const dir = process.argv[1];
    const pem = (key, type) => key.export({ type, format: "pem" });
    const token = generateKeyPairSync("ed25519");
    fs.writeFileSync(`${dir}/internal-token.pem`, pem(token.privateKey, "pkcs8"));
    fs.writeFileSync(`${dir}/internal-token.pub.pem`, pem(token.publicKey, "spki"));
    fs.writeFileSync(`${dir}/signing.pem`, pem(generateKeyPairSync("ed25519").privateKey, "pkcs8"));
    fs.writeFileSync(`${dir}/webhook-secret-key`, randomBytes(32).toString("base64"));
  ' "$KEYS"
  chmod 0755 "$KEYS"
  chmod 0444 "$KEYS"/*
}

# podman run for one of the image's entry points, hardened as the manifests run it.
run_container() { # name detach(yes|no) entrypoint env...
  local name="$1" detach="$2" entry="$3"
  shift 3
  local -a args=(--name "$PREFIX-$name" --label "dfc.ci=$PREFIX" --network host --read-only
    --memory "$MEMORY_LIMIT" -e NODE_OPTIONS="$NODE_OPTIONS_OF_PODS"
    --tmpfs /tmp:size=64m --cap-drop ALL --security-opt no-new-privileges --user 10001:10001
    -v "$KEYS:/run/secrets/dfc:ro" -e MONGO_URL="$MONGO_URL" -e AMQP_URL="$AMQP_URL" -e AMQP_EXCHANGE=dfc.image-ci)
  local var
  for var in "$@"; do args+=(-e "$var"); done
  if [[ "$detach" == yes ]]; then
    podman run -d "${args[@]}" "$SERVICE_IMAGE" "$entry" >/dev/null
  else
    podman run "${args[@]}" "$SERVICE_IMAGE" "$entry"
  fi
}

migrate_all() {
  local service
  for service in operator-service flight-request-service webhook-service; do
    run_container "$service-migrate" no "services/$service/dist/migrate.js" "MONGO_DB=${DB[$service]}" >/dev/null 2>"$KEYS/migrate.err" \
      || { cat "$KEYS/migrate.err" >&2; die "the $service index migration failed"; }
    log "migration $service: exit 0"
  done
}

start_services() {
  local key_file=INTERNAL_TOKEN_PUBLIC_KEY_FILE=/run/secrets/dfc/internal-token.pub.pem
  run_container operator-service yes services/operator-service/dist/main.js "PORT=${PORT[operator-service]}" \
    "MONGO_DB=${DB[operator-service]}" "$key_file" "ADMIN_API_KEY=$ADMIN_API_KEY"
  run_container flight-request-service yes services/flight-request-service/dist/main.js "PORT=${PORT[flight-request-service]}" \
    "MONGO_DB=${DB[flight-request-service]}" "$key_file" AUTHORISATION_SIGNING_KEY_FILE=/run/secrets/dfc/signing.pem \
    "OPERATOR_SERVICE_URL=http://127.0.0.1:${PORT[operator-service]}"
  # Loopback webhooks: the example receiver runs on this host, which the container shares.
  run_container webhook-service yes services/webhook-service/dist/main.js "PORT=${PORT[webhook-service]}" \
    "MONGO_DB=${DB[webhook-service]}" "$key_file" WEBHOOK_SECRET_KEY_FILE=/run/secrets/dfc/webhook-secret-key \
    ALLOW_HTTP_WEBHOOKS=true ALLOW_LOOPBACK_WEBHOOK_TARGETS=true
  # The steady load is one key's traffic at many times a key's limit: the limit is not what it measures.
  run_container gateway yes services/gateway/dist/main.js "PORT=${PORT[gateway]}" RATE_LIMIT_PER_KEY_PER_MINUTE=1000000 \
    INTERNAL_TOKEN_PRIVATE_KEY_FILE=/run/secrets/dfc/internal-token.pem \
    "OPERATOR_SERVICE_URL=http://127.0.0.1:${PORT[operator-service]}" \
    "FLIGHT_REQUEST_SERVICE_URL=http://127.0.0.1:${PORT[flight-request-service]}" \
    "WEBHOOK_SERVICE_URL=http://127.0.0.1:${PORT[webhook-service]}"
}

ready() { curl -fs -o /dev/null --max-time 2 "http://127.0.0.1:$1/readyz"; }

wait_ready() {
  local service deadline=$((SECONDS + 90))
  for service in "${SERVICES[@]}"; do
    until ready "${PORT[$service]}"; do
      [[ "$(podman inspect -f '{{.State.Running}}' "$PREFIX-$service")" == true ]] \
        || show_logs_and_die "$PREFIX-$service" "$service exited during start-up"
      ((SECONDS < deadline)) || show_logs_and_die "$PREFIX-$service" "$service not ready within 90 s"
      sleep 0.5
    done
  done
  log "all four services ready (/readyz)"
}

# Each container's memory: the cgroup's usage as podman reads it (pages other containers touched
# first, such as node's own binary, are not charged to it), and the resident set of its node process
# (VmRSS, every page it maps included: the figure docs/performance.md's goals are set in).
print_memory() { # when
  local service pid
  for service in "${SERVICES[@]}"; do
    pid="$(podman inspect -f '{{.State.Pid}}' "$PREFIX-$service")"
    log "memory $1: $service cgroup $(podman stats --no-stream --format '{{.MemUsage}}' "$PREFIX-$service" | cut -d/ -f1 | tr -d ' '), node RSS $(awk '/^VmRSS/ { printf "%.0f MiB", $2 / 1024 }' "/proc/$pid/status")"
  done
}

# Still running and never restarted: nothing crashed while the walkthrough ran.
check_alive() {
  local service state
  for service in "${SERVICES[@]}"; do
    state="$(podman inspect -f '{{.State.Status}} restarts={{.RestartCount}}' "$PREFIX-$service")"
    [[ "$state" == "running restarts=0" ]] || show_logs_and_die "$PREFIX-$service" "$service: $state after the walkthrough"
  done
  log "all four containers still running, none restarted"
}

podman_setup
bash "$ROOT/scripts/stack.sh" up >/dev/null || die "could not start the local stack (scripts/stack.sh up)"
eval "$(bash "$ROOT/scripts/stack.sh" env)"
build_service_image
remove_containers
make_keys
for port in "${PORT[@]}"; do
  ! curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/" || die "port $port is in use"
done
migrate_all
start_services
wait_ready
sleep 5
print_memory idle
GATEWAY_URL="http://127.0.0.1:${PORT[gateway]}" ADMIN_API_KEY="$ADMIN_API_KEY" WALKTHROUGH_RECEIVER_PORT=19000 \
  "$ROOT/node_modules/.bin/tsx" scripts/walkthrough.ts || die "the walkthrough through the containerised gateway failed"
# The web console is in the image: the gateway serves its page with the strict CSP, and its script.
console_url="http://127.0.0.1:${PORT[gateway]}/console"
console_headers="$(curl -fsS -D - -o /dev/null "$console_url/")" || die "the image's gateway does not serve /console"
grep -qi "^content-security-policy: default-src 'none'" <<<"$console_headers" || die "/console came without its Content-Security-Policy"
console_script="$(curl -fsS "$console_url/" | grep -o '/console/assets/index-[^"]*\.js' | head -n1)"
[[ -n "$console_script" ]] && curl -fsS -o /dev/null "http://127.0.0.1:${PORT[gateway]}$console_script" \
  || die "the console's script is not served by the image's gateway"
log "the image serves the console at /console ($console_script)"
print_memory "after the walkthrough"
check_alive
if ((LOAD_SECONDS > 0)); then
  GATEWAY_URL="http://127.0.0.1:${PORT[gateway]}" LOAD_SECONDS="$LOAD_SECONDS" "$ROOT/node_modules/.bin/tsx" bench/image-load.ts \
    || die "the steady load through the containerised gateway failed"
  print_memory "after $LOAD_SECONDS s of steady load"
  check_alive
fi
log "image booted and walked through"
