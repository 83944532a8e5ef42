#!/bin/bash
# The MongoDB stand-in's PID 1: PostgreSQL 15 (data in $PGDATA, unix socket only), then FerretDB
# on it; stops both on SIGTERM/SIGINT. Takes mongod's arguments as docker-compose.yml gives them:
#   --replSet NAME   replica set name FerretDB's hello reports (default $FERRETDB_REPL_SET_NAME)
#   --port N         port of $FERRETDB_LISTEN_ADDR;  --bind_ip_all, --bind_ip X: ignored (see below)
#
# FerretDB 1.24 has no replSetInitiate: with --repl-set-name its hello reports setName and
# hosts: [<its --listen-addr, verbatim>]. A driver given ?replicaSet= keeps only the hosts a
# primary reports, so the listen address must be the name clients use (mongo:27017). That name
# is made to resolve to 0.0.0.0 here (/etc/hosts) so FerretDB listens on every interface whatever
# the name resolves to elsewhere (a container IP, a Kubernetes Service's cluster IP).
set -euo pipefail

PGBIN=/usr/lib/postgresql/15/bin
PGDATA="${PGDATA:-/data/db/postgres}"
PGSOCK=/run/postgresql
log() { printf '[mongo-standin] %s\n' "$*"; }

while (($#)); do
  case "$1" in
    --replSet) FERRETDB_REPL_SET_NAME="$2"; shift 2 ;;
    --replSet=*) FERRETDB_REPL_SET_NAME="${1#*=}"; shift ;;
    --port) FERRETDB_LISTEN_ADDR="${FERRETDB_LISTEN_ADDR%:*}:$2"; shift 2 ;;
    --port=*) FERRETDB_LISTEN_ADDR="${FERRETDB_LISTEN_ADDR%:*}:${1#*=}"; shift ;;
    --bind_ip_all) shift ;;
    --bind_ip) shift 2 ;;
    --bind_ip=*) shift ;;
    *) log "ignoring the argument $1"; shift ;;
  esac
done
export FERRETDB_REPL_SET_NAME FERRETDB_LISTEN_ADDR

host="${FERRETDB_LISTEN_ADDR%:*}"
if [[ -n "$host" && ! "$host" =~ ^[0-9.]+$ && "$host" != *:* ]] && ! grep -qE "^0\.0\.0\.0[[:space:]]+$host\$" /etc/hosts; then
  echo "0.0.0.0 $host" >>/etc/hosts 2>/dev/null || log "cannot write /etc/hosts: FerretDB listens where $host resolves"
fi

mkdir -p "$PGDATA" "$PGSOCK"
chown postgres:postgres "$PGDATA" "$PGSOCK"
chmod 0700 "$PGDATA"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  log "creating the PostgreSQL cluster in $PGDATA"
  as_postgres "$PGBIN/initdb" -D "$PGDATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
fi
# A new container: no postmaster of a previous one can still be running on this data.
rm -f "$PGDATA/postmaster.pid"
as_postgres "$PGBIN/pg_ctl" -D "$PGDATA" -w -t 120 -l "$PGDATA/../postgres.log" \
  -o "-c listen_addresses='' -k $PGSOCK -c max_connections=300" start >/dev/null \
  || { tail -n 20 "$PGDATA/../postgres.log" >&2; exit 1; }
psql_() { as_postgres "$PGBIN/psql" -h "$PGSOCK" -U postgres -v ON_ERROR_STOP=1 -qtA "$@"; }
[[ "$(psql_ -c "SELECT 1 FROM pg_database WHERE datname = 'ferretdb'")" == 1 ]] || psql_ -c 'CREATE DATABASE ferretdb'
# As scripts/stack.sh: indexes FerretDB's equality lookups can use (scripts/local-engine).
psql_ -d ferretdb -o /dev/null </usr/local/share/ferretdb/equality-indexes.sql

# shellcheck disable=SC2317 # the trap's
stop() {
  log "stopping"
  kill -TERM "$ferretdb" 2>/dev/null || true
  wait "$ferretdb" || true
  as_postgres "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null || true
  exit 0
}
trap stop TERM INT

log "FerretDB $(ferretdb --version | sed -n 's/^version: //p') as replica set $FERRETDB_REPL_SET_NAME at $FERRETDB_LISTEN_ADDR"
setpriv --reuid=postgres --regid=postgres --init-groups \
  ferretdb --handler=postgresql --state-dir=/tmp \
  --postgresql-url="postgres://postgres@/ferretdb?host=$PGSOCK&pool_max_conns=200" &
ferretdb=$!
status=0
wait "$ferretdb" || status=$?
log "FerretDB exited ($status)"
as_postgres "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null || true
exit "$status"
