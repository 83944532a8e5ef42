#!/usr/bin/env bash
# Test entry point (`npm test`): typecheck, then run every mocha spec.
#   - If MONGO_URL and AMQP_URL are both set, they are used as-is.
#   - Else, if a Docker engine answers, the tests start their own containers
#     (testcontainers) and nothing is started here.
#   - Else, the local stack (scripts/stack.sh: FerretDB/mongod + RabbitMQ) is
#     started (idempotent) and its URLs are exported.
# Extra arguments are passed to mocha, e.g. `npm test -- --grep outbox`.
set -euo pipefail

ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if [[ -n "${MONGO_URL:-}" && -n "${AMQP_URL:-}" ]]; then
  echo "[test] using MONGO_URL=$MONGO_URL AMQP_URL=$AMQP_URL from the environment"
elif command -v docker >/dev/null 2>&1 && timeout 20 docker info >/dev/null 2>&1; then
  echo "[test] Docker engine available: tests will start their own containers"
else
  echo "[test] no MONGO_URL/AMQP_URL and no Docker engine: starting the local stack"
  bash "$ROOT/scripts/stack.sh" up || { echo "[test] ERROR: could not start the local stack (scripts/stack.sh up)" >&2; exit 1; }
  eval "$(bash "$ROOT/scripts/stack.sh" env)"
  export MONGO_URL AMQP_URL
fi

# The tests and every process they start run on the node of the PATH: Node 24, the image's.
[[ "$(node -p 'process.versions.node.split(".")[0]')" == "$(cat "$ROOT/.node-version")" ]] \
  || { echo "[test] ERROR: node $(node --version) is not the image's Node $(cat "$ROOT/.node-version") (source scripts/use-node.sh)" >&2; exit 1; }

echo "[test] typecheck: tsc -p tsconfig.json"
npx --no-install tsc -p tsconfig.json || { echo "[test] ERROR: typecheck failed" >&2; exit 1; }

# The web console (apps/console): its typecheck, its bundle (with the size budget) and the build the
# gateway serves at /console, which the browser tests (e2e/test/console) open.
echo "[test] console: npm run build -w @dfc/console"
npm run --silent build -w @dfc/console || { echo "[test] ERROR: the console build failed" >&2; exit 1; }

# Every query the services send is recorded (its shape, once) for the
# index-coverage check that runs after the last spec
# (libs/kit/test/testing/index-coverage.test.ts); child processes inherit the path.
export DB_COMMAND_LOG="${DB_COMMAND_LOG:-$(mktemp -t dfc-db-commands.XXXXXX.ndjson)}"
echo "[test] recording database queries in $DB_COMMAND_LOG"

echo "[test] mocha"
set +e
npx --no-install mocha --config .mocharc.json \
  'libs/*/test/**/*.test.ts' \
  'services/*/test/**/*.test.ts' \
  'apps/*/test/**/*.test.ts' \
  'e2e/test/**/*.test.ts' \
  'scripts/*.test.ts' \
  "$@"
rc=$?
set -e
exit "$rc"
