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

# The bench and everything it starts (the services, the bare proxy and deliverer it compares them
# with) run on the node of the PATH: Node 24, the image's (`source scripts/use-node.sh`).
[[ "$(node -p 'process.versions.node.split(".")[0]')" == "$(cat "$ROOT/.node-version")" ]] \
  || { echo "[bench] ERROR: node $(node --version) is not the image's Node $(cat "$ROOT/.node-version") (source scripts/use-node.sh)" >&2; exit 1; }
echo "[bench] node $(node --version)"

exec npx --no-install tsx bench/run.ts "$@"
