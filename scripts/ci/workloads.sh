#!/usr/bin/env bash
# The production overlay's Deployments and Jobs, started as podman containers exactly as their specs
# say (scripts/ci/workloads/run-workloads.ts), and the README walkthrough run against them:
#   1. renders k8s/overlays/production with kustomize (scripts/ci/go-tools.sh, as validate-deploy.sh),
#   2. builds the Dockerfile (scripts/ci/podman/lib.sh) and the MongoDB/RabbitMQ stand-ins
#      (scripts/ci/podman/standins.sh), started on the podman network dfc-workloads as `mongo` and
#      `rabbitmq`, the hosts the test Secrets name,
#   3. writes test values for every Secret the workloads mount (Ed25519 keys made per run, an AES
#      key, an admin API key, the stand-ins' URLs) and, CI only, ALLOW_HTTP_WEBHOOKS and
#      ALLOW_LOOPBACK_WEBHOOK_TARGETS=true in dfc-config (the manifests' values stay; the walkthrough's
#      example receiver listens on webhook-service's loopback, in its network namespace),
#   4. runs the Jobs to completion, then the Deployments (one replica each) until their startup and
#      readiness probes pass, publishes the gateway Service's port on 127.0.0.1:28080, and runs
#      scripts/walkthrough.ts while the liveness probes are polled; prints each workload's state
#      and memory and removes everything (also on failure or interrupt).
#
#   bash scripts/ci/workloads.sh
#   WORKLOADS_MANIFESTS=edited.yaml bash scripts/ci/workloads.sh   # start these rendered manifests instead
#
# Needs root (rootful podman, on Debian: lib.sh installs it), Go for kustomize on the first run.
set -euo pipefail

ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
NETWORK=dfc-workloads
GATEWAY_PUBLISH=127.0.0.1:28080
LABEL="dfc.workloads.run=$NETWORK"
STARTED=$SECONDS

log() { printf '[workloads] %s\n' "$*" >&2; }
die() { printf '[workloads] ERROR: %s\n' "$*" >&2; exit 1; }

# shellcheck source=podman/lib.sh
source "$ROOT/scripts/ci/podman/lib.sh"
# shellcheck source=podman/standins.sh
source "$ROOT/scripts/ci/podman/standins.sh"
# shellcheck source=go-tools.sh
source "$ROOT/scripts/ci/go-tools.sh"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/dfc-workloads.XXXXXX")"

remove_everything() {
  local ids
  ids="$(podman ps -aq --filter "label=$LABEL" 2>/dev/null || true)"
  # shellcheck disable=SC2086
  [[ -z "$ids" ]] || podman rm --force --depend --time 10 $ids >/dev/null 2>&1 || true
  podman network exists "$NETWORK" 2>/dev/null && podman network rm --force "$NETWORK" >/dev/null 2>&1 || true
}
cleanup() {
  local status=$?
  remove_everything
  rm -rf "$WORK"
  log "done in $((SECONDS - STARTED)) s"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_data_layer() {
  log "data layer on the podman network $NETWORK: mongo ($MONGO_STANDIN_IMAGE), rabbitmq ($RABBITMQ_STANDIN_IMAGE)"
  podman network create "$NETWORK" >/dev/null
  podman run -d --name "$NETWORK-mongo" --label "$LABEL" --network "$NETWORK" --network-alias mongo \
    "$MONGO_STANDIN_IMAGE" >/dev/null
  podman run -d --name "$NETWORK-rabbitmq" --label "$LABEL" --network "$NETWORK" --network-alias rabbitmq \
    --hostname rabbitmq "$RABBITMQ_STANDIN_IMAGE" >/dev/null
  local deadline=$((SECONDS + 180))
  until podman exec "$NETWORK-mongo" mongo-standin-healthcheck >/dev/null 2>&1 \
    && podman exec "$NETWORK-rabbitmq" rabbitmq-diagnostics -q check_port_connectivity >/dev/null 2>&1; do
    if ((SECONDS > deadline)); then
      podman logs --tail 50 "$NETWORK-mongo" >&2 || true
      podman logs --tail 50 "$NETWORK-rabbitmq" >&2 || true
      die "the data stand-ins did not become healthy within 180 s"
    fi
    sleep 2
  done
  log "data layer healthy"
}

# <dir>/secret/<name>/<key> and <dir>/configmap/<name>/<key>: what run-workloads.ts reads.
value() { mkdir -p "$(dirname "$VALUES/$1")"; printf '%s' "$2" >"$VALUES/$1"; }

write_test_values() {
  VALUES="$WORK/values"
  local keys="$WORK/keys"
  mkdir -p "$keys"
  openssl genpkey -algorithm ed25519 -out "$keys/internal-token.pem" 2>/dev/null
  openssl genpkey -algorithm ed25519 -out "$keys/authorisation.pem" 2>/dev/null
  value secret/dfc-internal-token-private/private.pem "$(cat "$keys/internal-token.pem")"
  value secret/dfc-internal-token-public/public.pem "$(openssl pkey -in "$keys/internal-token.pem" -pubout)"
  value secret/dfc-authorisation-signing-key/private.pem "$(cat "$keys/authorisation.pem")"
  value secret/dfc-authorisation-signing-key/previous-public.pem ""
  value secret/dfc-webhook-secret-key/WEBHOOK_SECRET_KEY "$(openssl rand -base64 32)"
  value secret/dfc-webhook-secret-key/WEBHOOK_SECRET_KEY_DECRYPT_ONLY ""
  ADMIN_API_KEY="dfc_$(openssl rand -hex 8)_$(openssl rand -base64 32 | tr '+/' '-_' | tr -d '=')"
  value secret/dfc-admin-api-key/ADMIN_API_KEY "$ADMIN_API_KEY"
  # One broker user per service (and the replay command's), created in the stand-in by
  # create_broker_users with the data-layer component's permissions.
  local secret user password
  for secret in dfc-amqp-gateway dfc-amqp-operator-service dfc-amqp-flight-request-service dfc-amqp-webhook-service dfc-amqp-dead-letter-replay; do
    user="${secret#dfc-amqp-}" password="$(openssl rand -hex 16)"
    value "secret/$secret/username" "$user"
    value "secret/$secret/password" "$password"
    value "secret/$secret/url" "amqp://$user:$password@rabbitmq:5672"
  done
  local service
  for service in gateway operator-service flight-request-service webhook-service; do
    value "secret/dfc-mongo-$service/url" "mongodb://mongo:27017/?replicaSet=rs0"
  done
  # CI only: the walkthrough's receiver is on webhook-service's loopback, over plain HTTP.
  value configmap/dfc-config/ALLOW_HTTP_WEBHOOKS true
  value configmap/dfc-config/ALLOW_LOOPBACK_WEBHOOK_TARGETS true
}

# The users of k8s/components/data-layer/rabbitmq-users.yaml (scripts/ci/workloads/broker-users.ts), with
# exactly its permissions, so the walkthrough runs as the services' own users, not the administrator.
create_broker_users() {
  local secret configure write read users
  users="$(node node_modules/.bin/tsx scripts/ci/workloads/broker-users.ts)" || die "could not read the broker users (scripts/ci/workloads/broker-users.ts)"
  while IFS=$'\t' read -r secret configure write read; do
    [[ -f "$VALUES/secret/$secret/password" ]] || die "no test values for the broker user of $secret (write_test_values)"
    podman exec "$NETWORK-rabbitmq" rabbitmqctl -q add_user "$(cat "$VALUES/secret/$secret/username")" "$(cat "$VALUES/secret/$secret/password")" >/dev/null \
      && podman exec "$NETWORK-rabbitmq" rabbitmqctl -q set_permissions -p / "$(cat "$VALUES/secret/$secret/username")" "$configure" "$write" "$read" >/dev/null \
      || die "could not create the broker user of $secret in the stand-in"
  done <<<"$users"
  log "broker users created with the data-layer component's permissions: $(cut -f1 <<<"$users" | tr '\n' ' ')"
}

mkdir -p "$ROOT/.data"
exec 9>"$ROOT/.data/workloads.lock"
flock -w 1800 9 || die "another scripts/ci/workloads.sh run holds .data/workloads.lock"
podman_setup
remove_everything

if [[ -n "${WORKLOADS_MANIFESTS:-}" ]]; then
  log "starting the given manifests $WORKLOADS_MANIFESTS"
  cp "$WORKLOADS_MANIFESTS" "$WORK/rendered.yaml"
else
  require_kustomize
  "$GO_TOOLS/bin/kustomize" build k8s/overlays/production >"$WORK/rendered.yaml" || die "kustomize build k8s/overlays/production failed"
  log "rendered k8s/overlays/production ($(grep -c '^kind:' "$WORK/rendered.yaml") objects)"
fi
write_test_values
runner=(node node_modules/.bin/tsx scripts/ci/workloads/run-workloads.ts
  --manifests "$WORK/rendered.yaml" --values "$VALUES" --state-dir "$WORK/state"
  --image-map "dfc/service=$SERVICE_IMAGE" --network "$NETWORK" --publish "gateway/http=$GATEWAY_PUBLISH")
# What needs no container first: unknown fields, Service wiring, Secret and ConfigMap keys.
"${runner[@]}" --check || die "the manifests cannot be started as they are (above)"
build_service_image
build_standin_images
NODE_BASE="$(node_base_image)"
log "images ready after $((SECONDS - STARTED)) s"
start_data_layer
create_broker_users

receiver="podman run --rm --name $NETWORK-receiver --label $LABEL --network container:$NETWORK-webhook-service"
# label=disable: SELinux hosts would refuse the checkout to the container (relabelling it is no option).
receiver+=" --security-opt label=disable -v $(printf %q "$ROOT"):/src:ro -w /src -e WEBHOOK_SECRET -e PORT $NODE_BASE node node_modules/.bin/tsx examples/webhook-receiver/server.ts"
GATEWAY_URL="http://$GATEWAY_PUBLISH" ADMIN_API_KEY="$ADMIN_API_KEY" WALKTHROUGH_RECEIVER="$receiver" \
  "${runner[@]}" -- npx tsx scripts/walkthrough.ts \
  || die "the workloads run failed (above: what failed and the containers' logs)"
log "the production overlay's workloads ran the walkthrough"
