#!/usr/bin/env bash
# The system as N replicas run it (issue 52), started for real on this machine: a three-node RabbitMQ
# cluster on 127.0.0.1 (Debian's rabbitmq-server, nodes rc1-rc3@localhost joined with join_cluster, so
# every quorum queue has three members), two processes of each service (compiled, with the pod's node options,
# as the image runs them) on the local stack's database, and Debian's HAProxy, run unprivileged with a
# config written here: one HTTP frontend round-robin over the two gateways, one per service over its two
# processes (the gateway takes one URL per service), and one TCP frontend over the three brokers' AMQP
# ports, so every process keeps one AMQP_URL and reconnects through it to a live node. Then:
#   1. the README walkthrough (scripts/walkthrough.ts) through the load balancer;
#   2. scripts/ci/replicas/drive.ts: a zone created through one gateway and flight-request-service
#      process and a screening at once through the other two, which must apply it; a key's per-minute
#      limit spent across both gateways (their sum holds, not twice the limit); a stream of submissions
#      while the broker node leading webhook-service.attempts is killed (SIGKILL of its beam), after
#      which every accepted submission's status_change must reach the receiver once per delivery id;
#   3. every process still running and ready.
# Prints the figures as it goes; exits non-zero on any miss, and stops whatever it started, whatever
# happens. Output: .data/ci/replicas/ (each process's log, haproxy's, the brokers'); state in a temp dir.
#
#   bash scripts/ci/replicas.sh
#
# MONGO_URL: the database to use (default: the local stack's, started by scripts/stack.sh if down);
# the run's databases are named dfc_replicas_<run>_* and dropped at the end.
# REPLICAS_PORT_BASE (28100): the ports it listens on are BASE..BASE+61 (below the kernel's ephemeral
# range); each must be free. REPLICAS_STREAM_SECONDS (30): how long the submissions stream.
set -euo pipefail

ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

log() { printf '[replicas] %s\n' "$*"; }
die() { printf '[replicas] ERROR: %s\n' "$*" >&2; exit 1; }
as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"
  else return 1
  fi
}
port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" >/dev/null 2>&1; }

TSX="$ROOT/node_modules/.bin/tsx"
[[ -x "$TSX" ]] || die "tsx not found in node_modules (run 'npm ci' first)"
RABBIT_BIN=/usr/lib/rabbitmq/bin
[[ -x "$RABBIT_BIN/rabbitmq-server" ]] || RABBIT_BIN="$(dirname -- "$(command -v rabbitmq-server 2>/dev/null || echo /nonexistent/x)")"
[[ -x "$RABBIT_BIN/rabbitmq-server" ]] || die "rabbitmq-server is not installed (.ci/run installs it)"

BASE="${REPLICAS_PORT_BASE:-28100}"
LB_PORT=$BASE
STATS_PORT=$((BASE + 5))
AMQP_LB_PORT=$((BASE + 40))
WALKTHROUGH_RECEIVER_PORT=$((BASE + 60))
SERVICES=(operator-service flight-request-service webhook-service gateway)
# Each service's balancer port is BASE + 10 × its position; its processes take the next two.
declare -A LB_OF=([gateway]=$LB_PORT [operator-service]=$((BASE + 10)) [flight-request-service]=$((BASE + 20)) [webhook-service]=$((BASE + 30)))
declare -A PORT_OF=(
  [gateway-1]=$((BASE + 1)) [gateway-2]=$((BASE + 2))
  [operator-service-1]=$((BASE + 11)) [operator-service-2]=$((BASE + 12))
  [flight-request-service-1]=$((BASE + 21)) [flight-request-service-2]=$((BASE + 22))
  [webhook-service-1]=$((BASE + 31)) [webhook-service-2]=$((BASE + 32)))
declare -A METRICS_PORT_OF=([gateway-1]=$((BASE + 3)) [gateway-2]=$((BASE + 4)))
NODES=(rc1 rc2 rc3)
declare -A AMQP_PORT_OF=([rc1]=$((BASE + 41)) [rc2]=$((BASE + 42)) [rc3]=$((BASE + 43)))
declare -A DIST_PORT_OF=([rc1]=$((BASE + 51)) [rc2]=$((BASE + 52)) [rc3]=$((BASE + 53)))
KEY_LIMIT=100

WORK="$ROOT/.data/ci/replicas"
STATE="$(mktemp -d "${TMPDIR:-/tmp}/dfc-replicas.XXXXXX")"
RUN="r$(date +%s)"
declare -A DB_OF=([operator-service]="dfc_replicas_${RUN}_operators" [flight-request-service]="dfc_replicas_${RUN}_flight_requests"
  [webhook-service]="dfc_replicas_${RUN}_webhooks" [gateway]="dfc_replicas_${RUN}_gateway")
declare -A PID_OF=() BROKER_PID_OF=()
HAPROXY_PID=""
STARTED_AT=$SECONDS

# ---------------------------------------------------------------- cleanup --

stop_processes() {
  local name pid i alive
  for pid in "${PID_OF[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for ((i = 0; i < 75; i++)); do
    alive=0
    for pid in "${PID_OF[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || break
    sleep 0.2
  done
  for name in "${!PID_OF[@]}"; do
    kill -0 "${PID_OF[$name]}" 2>/dev/null && log "$name did not stop within 15 s; killing it"
    kill -KILL -- "-${PID_OF[$name]}" 2>/dev/null || true
  done
  PID_OF=()
}

stop_brokers() {
  local node
  for node in "${!BROKER_PID_OF[@]}"; do
    kill -0 "${BROKER_PID_OF[$node]}" 2>/dev/null || continue
    {
      rabbitmqctl_ "$node" --timeout 20 stop >/dev/null 2>&1 || kill -KILL -- "-${BROKER_PID_OF[$node]}" 2>/dev/null || true
    } &
  done
  wait
}

drop_databases() {
  [[ -n "${MONGO_URL:-}" ]] || return 0
  node --input-type=module -e '
    import { MongoClient } from "mongodb";
    const client = await MongoClient.connect(process.argv[1], { serverSelectionTimeoutMS: 5000 });
    try { for (const name of process.argv.slice(2)) await client.db(name).dropDatabase(); } finally { await client.close(); }
  ' "$MONGO_URL" "${DB_OF[@]}" || log "WARNING: could not drop the run's databases (${DB_OF[*]})"
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  stop_processes
  [[ -z "$HAPROXY_PID" ]] || { kill -TERM "$HAPROXY_PID" 2>/dev/null || true; wait "$HAPROXY_PID" 2>/dev/null || true; }
  stop_brokers
  drop_databases
  rm -rf "$STATE"
  log "stopped everything it started ($((SECONDS - STARTED_AT)) s in all)"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ------------------------------------------------------------ preparation --

ensure_haproxy() {
  command -v haproxy >/dev/null 2>&1 && return 0
  command -v apt-get >/dev/null 2>&1 || die "haproxy is not installed and apt-get is not available"
  log "installing haproxy with apt-get"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null || die "could not install haproxy: 'apt-get update' failed"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends haproxy >/dev/null \
    || die "could not install haproxy: 'apt-get install' failed"
  command -v haproxy >/dev/null 2>&1 || die "could not install haproxy: still not on the PATH"
}

check_ports_free() {
  local port
  for port in "$LB_PORT" "$STATS_PORT" "$AMQP_LB_PORT" "$WALKTHROUGH_RECEIVER_PORT" "${LB_OF[@]}" "${PORT_OF[@]}" "${METRICS_PORT_OF[@]}" \
    "${AMQP_PORT_OF[@]}" "${DIST_PORT_OF[@]}"; do
    ! port_open "$port" || die "port $port is in use (set REPLICAS_PORT_BASE)"
  done
}

# The secrets every replica of a service shares, as files (the kit reads NAME_FILE).
make_secrets() {
  mkdir -m 700 "$STATE/secrets"
  node -e '
    const { generateKeyPairSync, randomBytes } = require("node:crypto");
    const fs = require("node:fs");
    const dir = process.argv[1];
    const write = (name, value) => fs.writeFileSync(`${dir}/${name}`, value, { mode: 0o600 });
    const pem = (key, type) => key.export({ type, format: "pem" });
    const token = generateKeyPairSync("ed25519");
    write("internal-token.pem", pem(token.privateKey, "pkcs8"));
    write("internal-token.pub.pem", pem(token.publicKey, "spki"));
    write("signing.pem", pem(generateKeyPairSync("ed25519").privateKey, "pkcs8"));
    write("webhook-secret-key", randomBytes(32).toString("base64"));
    write("admin-api-key", `dfc_${randomBytes(8).toString("hex")}_${randomBytes(32).toString("base64url")}`);
  ' "$STATE/secrets"
  ADMIN_API_KEY="$(cat "$STATE/secrets/admin-api-key")"
}

# ---------------------------------------------------------------- brokers --

rabbit_env() { # node: the environment of that node and of the CLI that talks to it
  local node="$1" dir="$STATE/$1"
  printf '%s\0' "HOME=$STATE/erlang" "RABBITMQ_NODENAME=$node@localhost" "RABBITMQ_NODE_IP_ADDRESS=127.0.0.1" \
    "RABBITMQ_NODE_PORT=${AMQP_PORT_OF[$node]}" "RABBITMQ_DIST_PORT=${DIST_PORT_OF[$node]}" \
    "RABBITMQ_MNESIA_BASE=$dir/mnesia" "RABBITMQ_LOG_BASE=$WORK/$node" "RABBITMQ_PID_FILE=$dir/pid" \
    "RABBITMQ_CONFIG_FILE=$dir/rabbitmq.conf" "RABBITMQ_ADVANCED_CONFIG_FILE=$dir/advanced.config" \
    "RABBITMQ_ENABLED_PLUGINS_FILE=$dir/enabled_plugins" "ERL_EPMD_ADDRESS=127.0.0.1" \
    "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-kernel inet_dist_use_interface {127,0,0,1}"
}

rabbitmqctl_() { # node args...
  local node="$1" vars
  shift
  mapfile -d '' vars < <(rabbit_env "$node")
  env "${vars[@]}" "$RABBIT_BIN/rabbitmqctl" -n "$node@localhost" "$@"
}

start_brokers() {
  local node vars started=$SECONDS
  # One Erlang cookie for the three nodes and their CLI: what lets them form one cluster.
  mkdir -m 700 "$STATE/erlang"
  node -e 'process.stdout.write(require("node:crypto").randomBytes(24).toString("hex"))' >"$STATE/erlang/.erlang.cookie"
  chmod 400 "$STATE/erlang/.erlang.cookie"
  for node in "${NODES[@]}"; do
    mkdir -p "$STATE/$node/mnesia" "$WORK/$node"
    echo '[].' >"$STATE/$node/enabled_plugins"
    # pause_minority, as the production broker runs: a node cut off from the other two stops serving.
    printf 'listeners.tcp.default = 127.0.0.1:%s\ncluster_partition_handling = pause_minority\n' "${AMQP_PORT_OF[$node]}" >"$STATE/$node/rabbitmq.conf"
    mapfile -d '' vars < <(rabbit_env "$node")
    # In the foreground, in a process group of its own: the cleanup stops the node and all it started.
    env "${vars[@]}" setsid "$RABBIT_BIN/rabbitmq-server" </dev/null >>"$WORK/$node/startup.log" 2>&1 &
    BROKER_PID_OF[$node]=$!
  done
  local deadline=$((SECONDS + 90))
  for node in "${NODES[@]}"; do
    # await_startup fails at once while the node has not yet registered its name: asked again until then.
    until rabbitmqctl_ "$node" --timeout 60 await_startup >>"$WORK/$node/startup.log" 2>&1; do
      kill -0 "${BROKER_PID_OF[$node]}" 2>/dev/null || die "RabbitMQ node $node exited (see ${WORK#"$ROOT/"}/$node/)"
      ((SECONDS < deadline)) || die "RabbitMQ node $node did not start within 90 s (see ${WORK#"$ROOT/"}/$node/)"
      sleep 0.5
    done
  done
  for node in rc2 rc3; do
    { rabbitmqctl_ "$node" stop_app && rabbitmqctl_ "$node" join_cluster rc1@localhost && rabbitmqctl_ "$node" start_app \
      && rabbitmqctl_ "$node" --timeout 60 await_startup; } >>"$WORK/$node/startup.log" 2>&1 \
      || die "RabbitMQ node $node could not join rc1 (see ${WORK#"$ROOT/"}/$node/startup.log)"
  done
  local running
  running="$(rabbitmqctl_ rc1 cluster_status --formatter json | node -e 'let s="";process.stdin.on("data",(c)=>s+=c).on("end",()=>console.log(JSON.parse(s).running_nodes.sort().join(" ")))')"
  [[ "$running" == "rc1@localhost rc2@localhost rc3@localhost" ]] || die "the cluster runs '$running', not the three nodes"
  log "RabbitMQ cluster of three nodes running: $running (AMQP ${AMQP_PORT_OF[*]}), formed in $((SECONDS - started)) s"
}

# The quorum queues, their members (all three nodes) and those online, and their leader, as a live node reports them.
print_queues() { # node when
  log "quorum queues $2:"
  rabbitmqctl_ "$1" list_queues name type members online leader --formatter json 2>/dev/null | node -e '
    let s = ""; process.stdin.on("data", (c) => (s += c)).on("end", () => {
      const queues = JSON.parse(s).filter((q) => q.type === "quorum");
      for (const q of queues) console.log(`[replicas]   ${q.name}: ${q.members.length} members, ${q.online.length} online, leader ${q.leader}`);
      if (queues.length === 0 || queues.some((q) => q.members.length !== 3)) process.exit(1);
    });' || die "a quorum queue has not three members"
}

# The node leading webhook-service.attempts, the queue every delivery passes through: the one to kill.
leader_of_attempts() {
  rabbitmqctl_ rc1 list_queues name leader --formatter json | node -e '
    let s = ""; process.stdin.on("data", (c) => (s += c)).on("end", () => {
      const queue = JSON.parse(s).find((q) => q.name === "webhook-service.attempts");
      if (!queue) process.exit(1);
      console.log(queue.leader.split("@")[0]);
    });'
}

# ---------------------------------------------------------------- haproxy --

write_haproxy_config() {
  local service n cfg="$STATE/haproxy/haproxy.cfg"
  mkdir -p "$STATE/haproxy"
  {
    echo "global"
    # Root binds the ports and then runs as nobody; anyone else runs it as themselves.
    [[ $(id -u) -ne 0 ]] || printf '  user nobody\n  group nogroup\n'
    cat <<EOF
  log stdout format raw local0 info
  maxconn 4096

defaults
  log global
  option dontlognull
  retries 3
  option redispatch
  timeout connect 2s
  # Longer than the gateway's upstream timeout and than its connections' lifetime, so neither side's
  # keep-alive connection is closed under a call.
  timeout client 65s
  timeout server 65s
  timeout http-keep-alive 65s
  default-server inter 500ms fall 2 rise 2

frontend stats
  mode http
  bind 127.0.0.1:$STATS_PORT
  stats enable
  stats uri /stats

# Every process connects to one address; a connection goes to a live node of the three.
listen amqp
  mode tcp
  bind 127.0.0.1:$AMQP_LB_PORT
  balance roundrobin
  timeout client 1h
  timeout server 1h
EOF
    for n in "${NODES[@]}"; do echo "  server $n 127.0.0.1:${AMQP_PORT_OF[$n]} check"; done
    for service in "${SERVICES[@]}"; do
      cat <<EOF

listen $service
  mode http
  option httplog
  bind 127.0.0.1:${LB_OF[$service]}
  balance roundrobin
  option httpchk GET /readyz
  # Which process answered, for the run to tell; a request whose id starts with pin-<process>- goes to
  # that process (the zone check places its two calls so), every other is balanced.
  http-response set-header X-$([[ $service == gateway ]] && echo Gateway || echo Upstream)-Replica %s
EOF
      [[ $service != gateway ]] || echo "  option forwardfor"
      for n in 1 2; do echo "  use-server $service-$n if { req.hdr(x-request-id) -m beg pin-$service-$n- }"; done
      for n in 1 2; do echo "  server $service-$n 127.0.0.1:${PORT_OF[$service-$n]} check"; done
    done
  } >"$cfg"
  haproxy -c -q -f "$cfg" || die "the haproxy configuration does not check (haproxy -c)"
}

start_haproxy() {
  haproxy -db -f "$STATE/haproxy/haproxy.cfg" </dev/null >"$WORK/haproxy.log" 2>&1 &
  HAPROXY_PID=$!
  local i
  for ((i = 0; i < 40; i++)); do
    port_open "$AMQP_LB_PORT" && port_open "$LB_PORT" && break
    kill -0 "$HAPROXY_PID" 2>/dev/null || { tail -n 20 "$WORK/haproxy.log" >&2; die "haproxy exited"; }
    sleep 0.25
  done
  log "haproxy $(haproxy -v | head -n 1 | awk '{print $3}') (pid $HAPROXY_PID, user $(ps -o user= -p "$HAPROXY_PID")): gateways on 127.0.0.1:$LB_PORT, AMQP on 127.0.0.1:$AMQP_LB_PORT, stats on 127.0.0.1:$STATS_PORT/stats"
}

# --------------------------------------------------------------- services --

entry() { # service main|migrate: the image's entry point, with the pod's node options (e2e/src/system.ts POD_NODE_OPTIONS)
  printf '%s\0' node --max-old-space-size=256 --max-semi-space-size=1 --v8-pool-size=1 --conditions=compiled "services/$1/dist/$2.js"
}

process_env() { # service replica: what that process is given, as the manifests give it
  local service="$1" replica="$2" secrets="$STATE/secrets" amqp="amqp://guest:guest@127.0.0.1:$AMQP_LB_PORT"
  local port="${PORT_OF[$service-$replica]}"
  printf '%s\0' "PATH=$PATH" LOG_LEVEL=info HOST=127.0.0.1 "PORT=$port" "AMQP_URL=$amqp"
  case "$service" in
    gateway)
      printf '%s\0' "INTERNAL_TOKEN_PRIVATE_KEY_FILE=$secrets/internal-token.pem" "METRICS_PORT=${METRICS_PORT_OF[$service-$replica]}" \
        "RATE_LIMIT_MONGO_URL=$MONGO_URL" "RATE_LIMIT_MONGO_DB=${DB_OF[gateway]}" "RATE_LIMIT_PER_KEY_PER_MINUTE=$KEY_LIMIT" TRUST_PROXY=true \
        "ALLOWED_HOSTS=127.0.0.1:$LB_PORT,localhost:$LB_PORT,127.0.0.1:$port,localhost:$port" \
        "OPERATOR_SERVICE_URL=http://127.0.0.1:${LB_OF[operator-service]}" \
        "FLIGHT_REQUEST_SERVICE_URL=http://127.0.0.1:${LB_OF[flight-request-service]}" \
        "WEBHOOK_SERVICE_URL=http://127.0.0.1:${LB_OF[webhook-service]}" ;;
    operator-service)
      printf '%s\0' "MONGO_URL=$MONGO_URL" "MONGO_DB=${DB_OF[$service]}" "INTERNAL_TOKEN_PUBLIC_KEY_FILE=$secrets/internal-token.pub.pem" \
        "ADMIN_API_KEY_FILE=$secrets/admin-api-key" ;;
    flight-request-service)
      printf '%s\0' "MONGO_URL=$MONGO_URL" "MONGO_DB=${DB_OF[$service]}" "INTERNAL_TOKEN_PUBLIC_KEY_FILE=$secrets/internal-token.pub.pem" \
        "AUTHORISATION_SIGNING_KEY_FILE=$secrets/signing.pem" "OPERATOR_SERVICE_URL=http://127.0.0.1:${LB_OF[operator-service]}" ;;
    webhook-service)
      printf '%s\0' "MONGO_URL=$MONGO_URL" "MONGO_DB=${DB_OF[$service]}" "INTERNAL_TOKEN_PUBLIC_KEY_FILE=$secrets/internal-token.pub.pem" \
        "WEBHOOK_SECRET_KEY_FILE=$secrets/webhook-secret-key" ALLOW_HTTP_WEBHOOKS=true ALLOW_LOOPBACK_WEBHOOK_TARGETS=true ;;
  esac
}

migrate_all() {
  local service command
  for service in operator-service flight-request-service webhook-service; do
    mapfile -d '' command < <(entry "$service" migrate)
    env -i "PATH=$PATH" "MONGO_URL=$MONGO_URL" "MONGO_DB=${DB_OF[$service]}" LOG_LEVEL=warn "${command[@]}" \
      </dev/null >"$WORK/$service-migrate.log" 2>&1 || { tail -n 20 "$WORK/$service-migrate.log" >&2; die "the $service index migration failed"; }
  done
  log "index migrations of the three databases: exit 0"
}

start_process() { # service replica
  local name="$1-$2" vars command
  mapfile -d '' vars < <(process_env "$1" "$2")
  mapfile -d '' command < <(entry "$1" main)
  # setsid: a process group of its own, which the cleanup stops whole.
  env -i "${vars[@]}" setsid "${command[@]}" </dev/null >"$WORK/$name.log" 2>&1 &
  PID_OF[$name]=$!
}

ready() { curl -fs -o /dev/null --max-time 2 "http://127.0.0.1:$1/readyz"; }

wait_ready() { # names...
  local name deadline=$((SECONDS + 90))
  for name in "$@"; do
    until ready "${PORT_OF[$name]}"; do
      kill -0 "${PID_OF[$name]}" 2>/dev/null || { tail -n 30 "$WORK/$name.log" >&2; die "$name exited during start-up"; }
      ((SECONDS < deadline)) || { tail -n 30 "$WORK/$name.log" >&2; die "$name not ready within 90 s"; }
      sleep 0.25
    done
  done
}

start_services() {
  local service n names=() started=$SECONDS
  for service in operator-service flight-request-service webhook-service; do
    for n in 1 2; do start_process "$service" "$n" && names+=("$service-$n"); done
  done
  wait_ready "${names[@]}"
  for n in 1 2; do start_process gateway "$n"; done
  wait_ready gateway-1 gateway-2
  log "8 processes ready in $((SECONDS - started)) s: $(for name in "${!PID_OF[@]}"; do printf '%s:%s ' "$name" "${PORT_OF[$name]}"; done)"
}

# HAProxy's servers that its health checks do not yet see UP: a process answers /readyz some checks
# before HAProxy sends it traffic (rise 2), and until then a call through the balancer is 503.
servers_not_up() {
  curl -fs --max-time 2 "http://127.0.0.1:$STATS_PORT/stats;csv" | awk -F, '
    NR == 1 { sub(/^# /, ""); for (i = 1; i <= NF; i++) column[$i] = i; next }
    NF > 1 && $column["svname"] != "FRONTEND" && $column["svname"] != "BACKEND" && $column["pxname"] != "stats" \
      && $column["status"] != "UP" { printf "%s/%s %s\n", $column["pxname"], $column["svname"], $column["status"] }'
}

wait_balanced() {
  local down deadline=$((SECONDS + 30))
  until down="$(servers_not_up)" && [[ -z "$down" ]]; do
    ((SECONDS < deadline)) || die "haproxy does not see every server up within 30 s: ${down:-its stats page does not answer}"
    sleep 0.25
  done
  log "haproxy sees every server up"
}

# Every process still running (none crashed or exited through the run) and ready.
check_processes() {
  local name failed=0
  for name in "${!PID_OF[@]}"; do
    if ! kill -0 "${PID_OF[$name]}" 2>/dev/null; then
      tail -n 30 "$WORK/$name.log" >&2
      log "$name is no longer running"
      failed=1
    elif ! ready "${PORT_OF[$name]}"; then
      log "$name answers /readyz with $(curl -s --max-time 2 "http://127.0.0.1:${PORT_OF[$name]}/readyz")"
      failed=1
    fi
  done
  ((!failed)) || die "not every process is running and ready at the end"
  log "all 8 processes still running and ready"
}

# ------------------------------------------------------------------- run --

ensure_haproxy
rm -rf "$WORK"
mkdir -p "$WORK"
if [[ -z "${MONGO_URL:-}" ]]; then
  bash scripts/stack.sh up >"$WORK/stack.log" 2>&1 || { tail -n 20 "$WORK/stack.log" >&2; die "could not start the local stack (scripts/stack.sh up)"; }
  eval "$(bash scripts/stack.sh env)"
fi
log "database: $MONGO_URL (databases dfc_replicas_${RUN}_*)"
check_ports_free
step_started=$SECONDS
npm run --silent build:services >"$WORK/build.log" 2>&1 || { tail -n 30 "$WORK/build.log" >&2; die "the build failed"; }
log "compiled what changed (npm run build:services) in $((SECONDS - step_started)) s"
make_secrets
start_brokers
write_haproxy_config
start_haproxy
migrate_all
start_services
wait_balanced
print_queues rc1 "after start-up"

step_started=$SECONDS
GATEWAY_URL="http://127.0.0.1:$LB_PORT" ADMIN_API_KEY="$ADMIN_API_KEY" WALKTHROUGH_RECEIVER_PORT="$WALKTHROUGH_RECEIVER_PORT" \
  "$TSX" scripts/walkthrough.ts || die "the walkthrough through the load balancer failed"
log "walkthrough through the load balancer: passed in $((SECONDS - step_started)) s"

KILL_NODE="$(leader_of_attempts)" || die "webhook-service.attempts has no leader"
processes=""
for name in "${!PID_OF[@]}"; do processes+="$name=http://127.0.0.1:${PORT_OF[$name]},"; done
REPLICAS_LB_URL="http://127.0.0.1:$LB_PORT" REPLICAS_STATS_URL="http://127.0.0.1:$STATS_PORT/stats" ADMIN_API_KEY="$ADMIN_API_KEY" \
  REPLICAS_PROCESSES="${processes%,}" REPLICAS_KEY_LIMIT="$KEY_LIMIT" REPLICAS_STREAM_SECONDS="${REPLICAS_STREAM_SECONDS:-30}" \
  REPLICAS_KILL_NODE="$KILL_NODE" REPLICAS_KILL_PID="$(cat "$STATE/$KILL_NODE/pid")" \
  "$TSX" scripts/ci/replicas/drive.ts || die "the multi-replica checks failed (above; logs: ${WORK#"$ROOT/"}/)"
for node in "${NODES[@]}"; do [[ "$node" == "$KILL_NODE" ]] || { print_queues "$node" "after $KILL_NODE was killed"; break; }; done
check_processes
log "passed in $((SECONDS - STARTED_AT)) s"
