#!/usr/bin/env bash
# Local infrastructure for the drone flight clearance service, without Docker:
#   - a MongoDB-compatible database on 127.0.0.1:${MONGO_PORT:-27017}
#       (mongod if it is on PATH, otherwise FerretDB v1 with its PostgreSQL backend,
#        built from source with Go into .data/bin/ferretdb on first use, on a
#        PostgreSQL cluster of our own in .data/postgres, port ${PG_PORT:-25432},
#        run as the 'postgres' user)
#   - RabbitMQ on 127.0.0.1:${AMQP_PORT:-5672}
#       (our own detached node "dfc@localhost", not the system service)
#
# Usage: scripts/stack.sh up|down|status|env
#   up      install missing dependencies, start both (idempotent), wait until ready
#   down    stop whatever this script started
#   status  show what is running (exit 0 when both are up, 3 otherwise)
#   env     print the export lines for MONGO_URL and AMQP_URL
#   ferretdb-version / ferretdb-bin   FerretDB's version / the path of its binary (built if missing)
#   rabbitmqctl ARGS...   the local node's rabbitmqctl (the broker permission tests' users and policies)
#
# All state lives under .data/ at the repository root (git-ignored).
set -euo pipefail

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd -- "$SCRIPT_DIR/.." && pwd)"
DATA="$ROOT/.data"

MONGO_PORT="${MONGO_PORT:-27017}"
AMQP_PORT="${AMQP_PORT:-5672}"
RABBITMQ_DIST_PORT="${RABBITMQ_DIST_PORT:-$((AMQP_PORT + 20000))}"
RABBIT_NODE="${RABBITMQ_NODENAME:-dfc@localhost}"
FERRETDB_VERSION="${FERRETDB_VERSION:-v1.24.2}"
STARTUP_TIMEOUT="${STACK_STARTUP_TIMEOUT:-120}" # seconds, per service

# Below the kernel's ephemeral range (32768-60999), from which outgoing connections take their local ports.
PG_PORT="${PG_PORT:-25432}"
PG_DIR="$DATA/postgres"
FDB_DIR="$DATA/ferretdb"
FDB_BIN_DEFAULT="$DATA/bin/ferretdb"
FDB_PID="$FDB_DIR/ferretdb.pid"
FDB_LOG="$FDB_DIR/ferretdb.log"
MONGOD_DIR="$DATA/mongod"
MONGOD_PID="$MONGOD_DIR/mongod.pid"
RMQ_DIR="$DATA/rabbitmq"

# Debian/Ubuntu tools live in /usr/sbin and /usr/local/go/bin, which are not always on PATH.
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin:/usr/local/go/bin"

log() { printf '[stack] %s\n' "$*"; }
warn() { printf '[stack] WARNING: %s\n' "$*" >&2; }
die() { printf '[stack] ERROR: %s\n' "$*" >&2; exit 1; }

# True when something accepts TCP connections on 127.0.0.1:$1.
port_open() {
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" >/dev/null 2>&1
}

wait_port() { # port seconds label
  local port="$1" secs="$2" label="$3" i
  for ((i = 0; i < secs * 4; i++)); do
    port_open "$port" && return 0
    sleep 0.25
  done
  return 1
}

pid_alive() { # pidfile
  [[ -f "$1" ]] && kill -0 "$(cat "$1" 2>/dev/null)" 2>/dev/null
}

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else return 1
  fi
}

lock() {
  mkdir -p "$DATA"
  if command -v flock >/dev/null 2>&1; then
    # Daemons started below must not inherit fd 9 (they are launched with 9>&-),
    # otherwise they would hold the lock forever.
    exec 9>"$DATA/stack.lock"
    flock -w 1800 9 || die "timed out waiting for another 'stack.sh' run to finish ($DATA/stack.lock)"
  fi
}

# ---------------------------------------------------------------- RabbitMQ --

# Prefer the real scripts over Debian's /usr/sbin wrappers, which re-run everything
# as the 'rabbitmq' system user (who cannot write to our .data directory).
rabbit_bin_dir() {
  if [[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ]]; then
    echo /usr/lib/rabbitmq/bin
  elif command -v rabbitmq-server >/dev/null 2>&1; then
    dirname -- "$(command -v rabbitmq-server)"
  else
    return 1
  fi
}

ensure_rabbitmq_installed() {
  rabbit_bin_dir >/dev/null && return 0
  log "rabbitmq-server is not installed; installing it with apt-get ..."
  command -v apt-get >/dev/null 2>&1 || die "could not install rabbitmq-server: apt-get not available (install RabbitMQ manually)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q \
    || die "could not install rabbitmq-server: 'apt-get update' failed (need root or sudo)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends rabbitmq-server \
    || die "could not install rabbitmq-server: 'apt-get install rabbitmq-server' failed"
  rabbit_bin_dir >/dev/null || die "could not install rabbitmq-server: still not found after apt-get install"
}

rabbit_env() {
  mkdir -p "$RMQ_DIR/mnesia" "$RMQ_DIR/log"
  export RABBITMQ_NODENAME="$RABBIT_NODE"
  export RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
  export RABBITMQ_NODE_PORT="$AMQP_PORT"
  export RABBITMQ_DIST_PORT
  export RABBITMQ_MNESIA_BASE="$RMQ_DIR/mnesia"
  export RABBITMQ_LOG_BASE="$RMQ_DIR/log"
  export RABBITMQ_PID_FILE="$RMQ_DIR/rabbitmq.pid"
  export RABBITMQ_CONFIG_FILE="$RMQ_DIR/rabbitmq.conf"
  export RABBITMQ_ADVANCED_CONFIG_FILE="$RMQ_DIR/advanced.config"
  export RABBITMQ_ENABLED_PLUGINS_FILE="$RMQ_DIR/enabled_plugins"
  export ERL_EPMD_ADDRESS=127.0.0.1
  # Erlang distribution (clustering/CLI) port: loopback only as well.
  export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="${RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS:-} -kernel inet_dist_use_interface {127,0,0,1}"
  [[ -f "$RABBITMQ_ENABLED_PLUGINS_FILE" ]] || echo '[].' >"$RABBITMQ_ENABLED_PLUGINS_FILE"
  cat >"$RABBITMQ_CONFIG_FILE" <<EOF
# Generated by scripts/stack.sh
listeners.tcp.default = 127.0.0.1:$AMQP_PORT
EOF
}

rabbitmqctl_() {
  local dir
  dir="$(rabbit_bin_dir)"
  # HOME: own Erlang cookie ($RMQ_DIR/.erlang.cookie), kept with the node's data.
  HOME="$RMQ_DIR" "$dir/rabbitmqctl" -n "$RABBIT_NODE" "$@"
}

rabbit_ours_running() {
  pid_alive "$RMQ_DIR/rabbitmq.pid"
}

rabbit_up() {
  if port_open "$AMQP_PORT"; then
    if rabbit_ours_running; then
      log "RabbitMQ: already running (node $RABBIT_NODE) on 127.0.0.1:$AMQP_PORT"
    else
      log "RabbitMQ: a broker already answers on 127.0.0.1:$AMQP_PORT (not started by this script); using it"
    fi
    return 0
  fi
  ensure_rabbitmq_installed
  rabbit_env
  local dir
  dir="$(rabbit_bin_dir)"
  if ! rabbit_ours_running; then
    log "RabbitMQ: starting node $RABBIT_NODE on 127.0.0.1:$AMQP_PORT (data: ${RMQ_DIR#"$ROOT/"})"
    HOME="$RMQ_DIR" "$dir/rabbitmq-server" -detached </dev/null >>"$RMQ_DIR/log/startup.log" 2>&1 9>&- \
      || die "could not start RabbitMQ (see $RMQ_DIR/log/)"
  else
    log "RabbitMQ: node $RABBIT_NODE is starting ..."
  fi
  local deadline=$((SECONDS + STARTUP_TIMEOUT))
  until rabbitmqctl_ --timeout 30 await_startup >>"$RMQ_DIR/log/startup.log" 2>&1; do
    if ((SECONDS >= deadline)); then
      die "could not start RabbitMQ: node $RABBIT_NODE not ready after ${STARTUP_TIMEOUT}s (see $RMQ_DIR/log/)"
    fi
    sleep 1
  done
  wait_port "$AMQP_PORT" 30 RabbitMQ \
    || die "could not start RabbitMQ: node is up but 127.0.0.1:$AMQP_PORT does not accept connections (see $RMQ_DIR/log/)"
  log "RabbitMQ: ready on 127.0.0.1:$AMQP_PORT"
}

rabbit_down() {
  if ! rabbit_ours_running; then
    if port_open "$AMQP_PORT"; then
      log "RabbitMQ: the broker on 127.0.0.1:$AMQP_PORT was not started by this script; leaving it alone"
    else
      log "RabbitMQ: not running"
    fi
    rm -f "$RMQ_DIR/rabbitmq.pid"
    return 0
  fi
  rabbit_env
  log "RabbitMQ: stopping node $RABBIT_NODE ..."
  if ! rabbitmqctl_ --timeout 60 stop "$RMQ_DIR/rabbitmq.pid" >>"$RMQ_DIR/log/startup.log" 2>&1; then
    warn "rabbitmqctl stop failed; sending SIGTERM"
    kill_pidfile "$RMQ_DIR/rabbitmq.pid" RabbitMQ
  fi
  rm -f "$RMQ_DIR/rabbitmq.pid"
  # epmd was started by our node; stop it if no other Erlang node still uses it.
  if command -v epmd >/dev/null 2>&1 && ! epmd -names 2>/dev/null | grep -q '^name '; then
    epmd -kill >/dev/null 2>&1 || true
  fi
  log "RabbitMQ: stopped"
}

# ---------------------------------------------------------------- MongoDB --

ferretdb_bin() {
  if [[ -n "${FERRETDB_BIN:-}" ]]; then echo "$FERRETDB_BIN"
  elif command -v ferretdb >/dev/null 2>&1; then command -v ferretdb
  else echo "$FDB_BIN_DEFAULT"
  fi
}

build_ferretdb() {
  local dest="$1"
  mkdir -p "$(dirname -- "$dest")"
  command -v go >/dev/null 2>&1 \
    || die "could not install FerretDB: 'go' is not installed (need Go >= 1.24 to build FerretDB $FERRETDB_VERSION; see https://go.dev/dl/)"
  log "FerretDB: building $FERRETDB_VERSION from source with $(go version | awk '{print $3}') (first run only, takes a few minutes) ..."
  local work
  work="$(mktemp -d "${TMPDIR:-/tmp}/ferretdb-build.XXXXXX")"
  local blog="$DATA/ferretdb-build.log"
  : >"$blog"
  (
    set -e
    cd "$work"
    # 'go install ...@version' does not work behind proxies that refuse the @v/list
    # (deprecation) lookup, so fetch the module through a throwaway module instead.
    go mod init fdbbuild
    go get "github.com/FerretDB/FerretDB@$FERRETDB_VERSION"
    src="$(go list -m -f '{{.Dir}}' github.com/FerretDB/FerretDB)"
    # The module zip lacks build/version/version.txt (generated by FerretDB's release
    # tooling); without it the binary panics at start-up. Build from a writable copy.
    cp -R "$src" "$work/src"
    chmod -R u+w "$work/src"
    echo "$FERRETDB_VERSION" >"$work/src/build/version/version.txt"
    cd "$work/src"
    CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$dest.tmp" ./cmd/ferretdb
    mv "$dest.tmp" "$dest"
  ) >>"$blog" 2>&1 || {
    rm -rf "$work"
    tail -n 20 "$blog" >&2
    die "could not install FerretDB: build failed (full log: $blog)"
  }
  rm -rf "$work"
  "$dest" --version >/dev/null 2>&1 || die "could not install FerretDB: built binary does not run (see $blog)"
  log "FerretDB: built $dest"
}

# ------------------------------------------------------------- PostgreSQL --
# FerretDB's PostgreSQL handler: 2.5-30x faster here than its SQLite handler and
# it takes concurrent writers (docs/architecture.md, "The local engine").

pg_bin_dir() {
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  [[ -n "$dir" && -x "$dir/initdb" ]] && echo "$dir"
}

as_postgres() { # from / : the caller's directory may be closed to postgres
  if [[ $(id -un) == postgres ]]; then (cd / && "$@")
  elif [[ $(id -u) -eq 0 ]]; then (cd / && runuser -u postgres -- "$@")
  else (cd / && sudo -n -u postgres -- "$@")
  fi
}

ensure_postgres_installed() {
  pg_bin_dir >/dev/null && return 0
  log "PostgreSQL is not installed; installing it with apt-get ..."
  command -v apt-get >/dev/null 2>&1 || die "could not install postgresql: apt-get not available"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q \
    || die "could not install postgresql: 'apt-get update' failed (need root or sudo)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends postgresql \
    || die "could not install postgresql: 'apt-get install postgresql' failed"
  pg_bin_dir >/dev/null || die "could not install postgresql: initdb still not found"
}

pg_ctl_() {
  as_postgres "$(pg_bin_dir)/pg_ctl" -D "$PG_DIR/data" "$@"
}

pg_running() {
  [[ -f "$PG_DIR/data/postmaster.pid" ]] && pg_ctl_ status >/dev/null 2>&1
}

# The cluster runs as 'postgres', which must reach its directory. When the
# checkout sits below a directory only root may enter (e.g. /root), the
# cluster goes to postgres's own home instead, one per checkout.
choose_pg_dir() {
  mkdir -p "$PG_DIR"
  as_postgres test -x "$PG_DIR" 2>/dev/null && return 0
  PG_DIR="$(getent passwd postgres | cut -d: -f6)/dfc-$(printf '%s' "$ROOT" | sha256sum | cut -c1-12)"
  log "PostgreSQL: ${DATA#"$ROOT/"} is not reachable by the postgres user; using $PG_DIR"
}

pg_up() {
  ensure_postgres_installed
  local bin
  bin="$(pg_bin_dir)"
  choose_pg_dir
  mkdir -p "$PG_DIR"
  chown postgres: "$PG_DIR" 2>/dev/null || true
  if [[ ! -s "$PG_DIR/data/PG_VERSION" ]]; then
    log "PostgreSQL: creating a cluster in ${PG_DIR#"$ROOT/"}/data"
    as_postgres "$bin/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 --no-instructions \
      >"$PG_DIR/initdb.log" 2>&1 || die "could not create the PostgreSQL cluster (see $PG_DIR/initdb.log)"
  fi
  if ! pg_running; then
    log "PostgreSQL: starting on 127.0.0.1:$PG_PORT"
    pg_ctl_ -l "$PG_DIR/postgres.log" -w -t "$STARTUP_TIMEOUT" \
      -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -k $PG_DIR -c max_connections=300" start </dev/null >/dev/null 9>&- \
      || die "could not start PostgreSQL (see $PG_DIR/postgres.log)"
  fi
  as_postgres "$bin/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'ferretdb'" \
    | grep -q 1 || as_postgres "$bin/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres ferretdb \
    || die "could not create the 'ferretdb' database"
  # Indexes FerretDB's equality lookups can use (read from stdin: the checkout may be closed to postgres).
  as_postgres "$bin/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d ferretdb -q -v ON_ERROR_STOP=1 -o /dev/null \
    <"$ROOT/scripts/local-engine/equality-indexes.sql" 2>"$PG_DIR/equality-indexes.log" \
    || die "could not set up the equality indexes (see $PG_DIR/equality-indexes.log)"
}

pg_down() {
  pg_bin_dir >/dev/null || return 0
  choose_pg_dir
  pg_running || return 0
  log "PostgreSQL: stopping ..."
  pg_ctl_ -m fast -w stop >/dev/null
}

mongo_up() {
  if port_open "$MONGO_PORT"; then
    if pid_alive "$FDB_PID"; then
      log "MongoDB: already running (FerretDB, pid $(cat "$FDB_PID")) on 127.0.0.1:$MONGO_PORT"
    elif pid_alive "$MONGOD_PID"; then
      log "MongoDB: already running (mongod, pid $(cat "$MONGOD_PID")) on 127.0.0.1:$MONGO_PORT"
    else
      log "MongoDB: something already answers on 127.0.0.1:$MONGO_PORT (not started by this script); using it"
    fi
    return 0
  fi

  if command -v mongod >/dev/null 2>&1; then
    mkdir -p "$MONGOD_DIR/db"
    log "MongoDB: starting mongod on 127.0.0.1:$MONGO_PORT (data: ${MONGOD_DIR#"$ROOT/"})"
    mongod --dbpath "$MONGOD_DIR/db" --bind_ip 127.0.0.1 --port "$MONGO_PORT" \
      --fork --logpath "$MONGOD_DIR/mongod.log" --logappend --pidfilepath "$MONGOD_PID" >/dev/null \
      || die "could not start mongod (see $MONGOD_DIR/mongod.log)"
    wait_port "$MONGO_PORT" "$STARTUP_TIMEOUT" MongoDB \
      || die "could not start mongod: 127.0.0.1:$MONGO_PORT not accepting connections (see $MONGOD_DIR/mongod.log)"
    log "MongoDB: ready on 127.0.0.1:$MONGO_PORT (mongod)"
    return 0
  fi

  local bin
  bin="$(ferretdb_bin)"
  [[ -x "$bin" ]] || build_ferretdb "$bin"
  pg_up
  mkdir -p "$FDB_DIR/state"
  if pid_alive "$FDB_PID"; then
    log "MongoDB: FerretDB (pid $(cat "$FDB_PID")) is starting ..."
  else
    log "MongoDB: starting FerretDB on 127.0.0.1:$MONGO_PORT (data: PostgreSQL in ${PG_DIR#"$ROOT/"})"
    # setsid + nohup: keep running after this script (and its terminal) go away. GOGC: FerretDB decodes
    # every document it reads into short-lived garbage; at Go's default pace its collector took much of its CPU.
    GOGC=400 setsid nohup "$bin" \
      --handler=postgresql \
      --postgresql-url="postgres://postgres@127.0.0.1:$PG_PORT/ferretdb?pool_max_conns=200" \
      --state-dir="$FDB_DIR/state" \
      --listen-addr="127.0.0.1:$MONGO_PORT" \
      --debug-addr=- \
      --telemetry=disable \
      --log-level=INFO \
      </dev/null >>"$FDB_LOG" 2>&1 9>&- &
    echo $! >"$FDB_PID"
  fi
  local i
  for ((i = 0; i < STARTUP_TIMEOUT * 4; i++)); do
    port_open "$MONGO_PORT" && break
    pid_alive "$FDB_PID" || { tail -n 20 "$FDB_LOG" >&2; die "could not start FerretDB: process exited (see $FDB_LOG)"; }
    sleep 0.25
  done
  port_open "$MONGO_PORT" || die "could not start FerretDB: 127.0.0.1:$MONGO_PORT not accepting connections after ${STARTUP_TIMEOUT}s (see $FDB_LOG)"
  log "MongoDB: ready on 127.0.0.1:$MONGO_PORT (FerretDB $FERRETDB_VERSION, PostgreSQL)"
}

kill_pidfile() { # pidfile label
  local pid i
  pid="$(cat "$1")"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 60; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.25
  done
  warn "$2 (pid $pid) did not stop after 15s; sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
}

mongo_down() {
  local stopped=0
  if pid_alive "$FDB_PID"; then
    log "MongoDB: stopping FerretDB (pid $(cat "$FDB_PID")) ..."
    kill_pidfile "$FDB_PID" FerretDB
    stopped=1
  fi
  rm -f "$FDB_PID"
  if pid_alive "$MONGOD_PID"; then
    log "MongoDB: stopping mongod (pid $(cat "$MONGOD_PID")) ..."
    mongod --dbpath "$MONGOD_DIR/db" --shutdown >/dev/null 2>&1 || kill_pidfile "$MONGOD_PID" mongod
    stopped=1
  fi
  rm -f "$MONGOD_PID"
  if ((stopped)); then
    log "MongoDB: stopped"
  elif port_open "$MONGO_PORT"; then
    log "MongoDB: the server on 127.0.0.1:$MONGO_PORT was not started by this script; leaving it alone"
  else
    log "MongoDB: not running"
  fi
}

# ---------------------------------------------------------------- commands --

cmd_env() {
  echo "export MONGO_URL=mongodb://127.0.0.1:$MONGO_PORT"
  echo "export AMQP_URL=amqp://guest:guest@127.0.0.1:$AMQP_PORT"
}

cmd_status() {
  local rc=0 what
  if port_open "$MONGO_PORT"; then
    if pid_alive "$FDB_PID"; then what="FerretDB, pid $(cat "$FDB_PID")"
    elif pid_alive "$MONGOD_PID"; then what="mongod, pid $(cat "$MONGOD_PID")"
    else what="not managed by this script"
    fi
    echo "MongoDB:  up    127.0.0.1:$MONGO_PORT ($what)"
  else
    echo "MongoDB:  down  127.0.0.1:$MONGO_PORT"
    rc=3
  fi
  if port_open "$AMQP_PORT"; then
    if rabbit_ours_running; then what="node $RABBIT_NODE, pid $(cat "$RMQ_DIR/rabbitmq.pid")"
    else what="not managed by this script"
    fi
    echo "RabbitMQ: up    127.0.0.1:$AMQP_PORT ($what)"
  else
    echo "RabbitMQ: down  127.0.0.1:$AMQP_PORT"
    rc=3
  fi
  return "$rc"
}

case "${1:-}" in
  up)
    lock
    mongo_up
    rabbit_up
    log "stack is up. Use:"
    cmd_env | sed 's/^/  /'
    ;;
  down)
    lock
    rabbit_down
    mongo_down
    pg_down
    ;;
  status) cmd_status ;;
  env) cmd_env ;;
  # For the container stand-ins (scripts/ci/podman/standins.sh): FerretDB's version, and the
  # static binary of that version (built here on first use; the log goes to stderr).
  ferretdb-version) echo "$FERRETDB_VERSION" ;;
  ferretdb-bin)
    lock
    if [[ "$("$FDB_BIN_DEFAULT" --version 2>/dev/null | head -n 1)" != "version: $FERRETDB_VERSION" ]]; then
      build_ferretdb "$FDB_BIN_DEFAULT" >&2
    fi
    echo "$FDB_BIN_DEFAULT"
    ;;
  # The local node's rabbitmqctl (users, permissions, policies for the broker tests).
  rabbitmqctl)
    shift
    rabbitmqctl_ "$@"
    ;;
  # Outages on purpose, for the resilience tests: the broker drops every
  # connection (its node keeps running), the database process stops.
  pause)
    case "${2:-}" in
      broker) rabbitmqctl_ stop_app >/dev/null && log "RabbitMQ: paused" ;;
      database) mongo_down ;;
      *) die "usage: $0 pause broker|database" ;;
    esac
    ;;
  resume)
    case "${2:-}" in
      broker) rabbitmqctl_ start_app >/dev/null && rabbitmqctl_ await_startup >/dev/null && log "RabbitMQ: resumed" ;;
      database) mongo_up ;;
      *) die "usage: $0 resume broker|database" ;;
    esac
    ;;
  *)
    echo "usage: $0 up|down|status|env|ferretdb-version|ferretdb-bin|rabbitmqctl ARGS...|pause broker|database|resume broker|database" >&2
    exit 2
    ;;
esac
