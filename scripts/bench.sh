#!/usr/bin/env bash
# Benchmark entry point (`npm run bench`): makes sure the local stack is up, then
# compiles the services (`npm run build:services`: what changed) and runs bench/run.ts (every
# bench/*.bench.ts, or the ones named, e.g. `npm run bench -- gateway`).
#   - If MONGO_URL and AMQP_URL are both set, they are used as-is.
#   - Else the local stack (scripts/stack.sh: FerretDB/mongod + RabbitMQ) is
#     started (idempotent) and its URLs are exported.
set -euo pipefail

ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if [[ -n "${MONGO_URL:-}" && -n "${AMQP_URL:-}" ]]; then
  echo "[bench] using MONGO_URL=$MONGO_URL AMQP_URL=$AMQP_URL from the environment"
else
  bash "$ROOT/scripts/stack.sh" up || { echo "[bench] ERROR: could not start the local stack (scripts/stack.sh up)" >&2; exit 1; }
  eval "$(bash "$ROOT/scripts/stack.sh" env)"
  export MONGO_URL AMQP_URL
fi

# The benchmarks run the compiled services, as the image does: compile what changed first.
npm run --silent build:services || { echo "[bench] ERROR: the build failed" >&2; exit 1; }

# ...and on the image's Node: the bench and everything it starts (the services, the bare proxy and
# deliverer it compares them with) run on the first node on the PATH.
NODE_BIN="$(bash "$ROOT/scripts/image-node.sh")" || { echo "[bench] ERROR: the image's Node could not be had (scripts/image-node.sh)" >&2; exit 1; }
export PATH="$(dirname "$NODE_BIN"):$PATH"
echo "[bench] node $(node --version), the image's"

exec npx --no-install tsx bench/run.ts "$@"
