#!/usr/bin/env bash
# The backup drill (docs/operations.md "Backup and restore"): on the local engine, the whole system
# runs the README walkthrough, its three databases are dumped, dropped and restored, the services
# restarted, and every document, index and API view of the walkthrough's data must be as before
# (scripts/ci/backup-drill/drill.ts says what is compared). Exits non-zero on any difference.
#
#   bash scripts/ci/backup-drill.sh
#
# Dump tool: mongodump/mongorestore from the MongoDB Database Tools, built from their Go module
# (github.com/mongodb/mongo-tools at MONGO_TOOLS_VERSION, by scripts/ci/go-tools.sh, as
# validate-deploy.sh builds its linters) into .data/tools/bin, or found on PATH. Where they cannot be
# had (the Go module proxy refuses that module on some networks; Debian bookworm has no mongo-tools
# package), the drill says so and uses the stand-in of scripts/ci/backup-drill/dump-tool.ts, unless
# BACKUP_DRILL_TOOLS=mongo-tools, which then fails. BACKUP_DRILL_TOOLS=stand-in skips the tools.
#
# Starts the local stack (scripts/stack.sh) if it is not up; the services listen on free ports of
# their own and use databases and an exchange of their own (e2e/src/system.ts), removed at the end;
# the walkthrough's webhook receiver listens on WALKTHROUGH_RECEIVER_PORT (29000: below the kernel's
# ephemeral range, which a fixed port must stay out of, or an outgoing connection may hold it). Output:
# .data/ci/backup-drill/ (the dump, drill.log).
set -euo pipefail

ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

MONGO_TOOLS_MODULE=github.com/mongodb/mongo-tools
# A release tag of the MongoDB Database Tools (not a semantic-version tag: Go resolves it to a
# pseudo-version). The CronJob runs the tools of its image (mongo:7.0.14 ships 100.10.x).
MONGO_TOOLS_VERSION=100.10.0
WORK="$ROOT/.data/ci/backup-drill"
TSX="$ROOT/node_modules/.bin/tsx"
MODE="${BACKUP_DRILL_TOOLS:-auto}"
export WALKTHROUGH_RECEIVER_PORT="${WALKTHROUGH_RECEIVER_PORT:-29000}"

log() { printf '[backup-drill] %s\n' "$*"; }
die() { printf '[backup-drill] ERROR: %s\n' "$*" >&2; exit 1; }
# shellcheck source=go-tools.sh
source "$ROOT/scripts/ci/go-tools.sh"
port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" >/dev/null 2>&1; }

[[ -x "$TSX" ]] || die "tsx not found in node_modules (run 'npm ci' first)"
case "$MODE" in auto | mongo-tools | stand-in) ;; *) die "BACKUP_DRILL_TOOLS must be auto, mongo-tools or stand-in (got $MODE)" ;; esac
port_open "$WALKTHROUGH_RECEIVER_PORT" && die "port $WALKTHROUGH_RECEIVER_PORT (the walkthrough's receiver) is in use: set WALKTHROUGH_RECEIVER_PORT"
mkdir -p "$WORK"

unset MONGODUMP MONGORESTORE
if [[ "$MODE" != stand-in ]]; then
  if go_tool "$MONGO_TOOLS_MODULE" "$MONGO_TOOLS_VERSION" mongodump="$MONGO_TOOLS_MODULE/mongodump/main" mongorestore="$MONGO_TOOLS_MODULE/mongorestore/main"; then
    export MONGODUMP="$GO_TOOLS/bin/mongodump" MONGORESTORE="$GO_TOOLS/bin/mongorestore"
  elif command -v mongodump >/dev/null 2>&1 && command -v mongorestore >/dev/null 2>&1; then
    MONGODUMP="$(command -v mongodump)" MONGORESTORE="$(command -v mongorestore)"
    export MONGODUMP MONGORESTORE
  else
    [[ "$MODE" == mongo-tools ]] && { tail -n 5 "$GO_TOOLS/mongodump-build.log" >&2; die "mongodump/mongorestore unavailable"; }
    log "mongodump/mongorestore unavailable ($(grep -m1 -oE '(403|404|410)[^:]*|go is not installed' "$GO_TOOLS/mongodump-build.log" || tail -n 1 "$GO_TOOLS/mongodump-build.log")): using the stand-in dump tool"
  fi
fi
[[ -n "${MONGODUMP:-}" ]] && log "dump tool: $("$MONGODUMP" --version 2>/dev/null | head -n 1)"

bash scripts/stack.sh up >"$WORK/stack.log" 2>&1 || { tail -n 20 "$WORK/stack.log" >&2; die "could not start the local stack (scripts/stack.sh up)"; }
eval "$(bash scripts/stack.sh env)"
export MONGO_URL AMQP_URL

start=$SECONDS
set +e
"$TSX" scripts/ci/backup-drill/drill.ts 2>&1 | tee "$WORK/drill.log"
status=${PIPESTATUS[0]}
set -e
((status == 0)) || die "the drill failed (above; log: ${WORK#"$ROOT/"}/drill.log)"
log "passed in $((SECONDS - start)) s"
