# syntax=docker/dockerfile:1
# One image for every service; the container's arguments name the compiled entry point:
#   services/<service>/dist/main.js      the service (default: the gateway)
#   services/<service>/dist/migrate.js   its index migration (the <service>-migrate Job)
# Node 24 (LTS). The digest pins the multi-arch index of node:24.18.0-bookworm-slim; refresh
# both together (docker buildx imagetools inspect node:24-bookworm-slim).
ARG NODE_IMAGE=node:24.18.0-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d

# --- manifests: the package.json files alone, so dependency layers survive source edits ---
FROM ${NODE_IMAGE} AS manifests
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/contracts/package.json libs/contracts/
COPY libs/kit/package.json libs/kit/
COPY services/gateway/package.json services/gateway/
COPY services/operator-service/package.json services/operator-service/
COPY services/flight-request-service/package.json services/flight-request-service/
COPY services/webhook-service/package.json services/webhook-service/
COPY e2e/package.json e2e/
COPY apps/console/package.json apps/console/

# --- build: TypeScript to JavaScript (npm run build -> <workspace>/dist) ---
FROM manifests AS build
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json tsconfig.build.base.json ./
COPY libs/ libs/
COPY services/ services/
COPY apps/ apps/
RUN npm run build \
 && find libs services -path '*/dist/*' \( -name '*.d.ts' -o -name '.tsbuildinfo' \) -delete

# --- runtime dependencies only: the manifests and every node_modules npm made, nested ones too
#     (npm nests a workspace's dependency under services/<service>/node_modules when the root
#     holds another version of it) ---
FROM manifests AS runtime-deps
RUN npm ci --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/@dfc/e2e e2e \
 && npm cache clean --force

# --- runtime: compiled JavaScript, production dependencies, nothing else ---
FROM ${NODE_IMAGE}
ENV NODE_ENV=production HOST=0.0.0.0
WORKDIR /app
COPY --from=runtime-deps /app ./
COPY --from=build /app/libs/contracts/dist libs/contracts/dist
COPY --from=build /app/libs/kit/dist libs/kit/dist
COPY --from=build /app/services/gateway/dist services/gateway/dist
COPY --from=build /app/services/operator-service/dist services/operator-service/dist
COPY --from=build /app/services/flight-request-service/dist services/flight-request-service/dist
COPY --from=build /app/services/webhook-service/dist services/webhook-service/dist
# The web console the gateway serves at /console (static files, built by Vite).
COPY --from=build /app/apps/console/dist apps/console/dist
# Operators' timezones and a list's days come from the system's tzdata (libs/kit/src/time-zones): a base
# without it fails here, not at the services' start.
RUN test -f /usr/share/zoneinfo/tzdata.zi
# Files stay root-owned and read-only to the process; any numeric uid works (k8s sets 10001 too).
USER 10001:10001
EXPOSE 8080
# "compiled": the workspace packages resolve to dist/*.js (package.json exports), not to src/*.ts.
# Memory (docs/performance.md): a 2 MiB semi-space keeps V8's young generation at 6 MiB instead of letting
# it grow to 48 MiB, whose pages stay resident; glibc hands large blocks (argon2's 19 MiB per password
# hash) back to the system when freed instead of raising its mmap threshold and keeping them in the heap.
# No --enable-source-maps: it holds every loaded module's source map (4–5 MiB per service); stack traces name
# dist/*.js, which tsc keeps line-for-line readable. NODE_OPTIONS=--enable-source-maps maps them when debugging.
# --single-threaded-gc: heaps of 30–40 MiB collect in well under a millisecond on the main thread; helper threads
# only contend for the one or two CPUs a pod gets (webhook-service: 2.3 against 2.5–2.9 ms CPU per delivery).
# MALLOC_ARENA_MAX=1: V8's compiler threads and libuv's pool share glibc's main heap instead of keeping an arena
# each, whose freed pages stayed resident (5–7 MiB of arenas per service; 2–4 MiB less RSS, CPU unchanged).
# `npm start` and the compiled runs of the e2e harness and the benchmarks read this line too.
ENV MALLOC_MMAP_THRESHOLD_=131072 MALLOC_ARENA_MAX=1
# --max-old-space-size=256: what node gives itself in the pods' 512Mi (k8s/base), made the same wherever the image
# runs (compose, a laptop); V8 then grows the heap by at most ~1.3x between full collections instead of up to 4x.
# The largest request (a zone import at its 16 MiB limit) peaks at ~300 MiB RSS in it. Raise it with the pod's limit.
# --import=@dfc/kit/preload (libs/kit/src/preload): node:http's ES module facade without Node's bundled undici
# (2–3 MiB each), the MongoDB driver's saslprep tables built on the first password rather than at load (2 MiB),
# TypeBox, jose, turf and mongoose with the MongoDB driver loaded as single files, as `npm run build` bundles them,
# not as about 700 modules (3–4 MiB).
# --invocation-count-for-feedback-allocation=256: a function gets V8's feedback vector, and with it Sparkplug's
# baseline code, on its 256th call instead of its 8th, so code that runs a few times (start-up, a walkthrough's
# one-off routes) stays in the interpreter, while a hot path (called at least once per request or delivery) passes
# 256 calls within seconds under load and tiers up as before (2–5 MiB less RSS per service after the walkthrough;
# CPU per unit within the bench's run-to-run spread, docs/performance.md item 37).
# --no-page-promotion: in a full collection V8 moves a young-generation page whose bytes are at least 70 % alive
# to the old generation whole instead of copying its live objects out. Without it, in four alternated runs, the
# gateway took a tenth less CPU per proxied read and webhook-service a twentieth less per delivery (within its
# runs' spread); the gateway's RSS after the walkthrough was 0-6 MiB more, under the goal (docs/performance.md
# item 50).
# --no-allocation-site-pretenuring: V8 otherwise starts allocating an allocation site's objects straight into the
# old generation once most of them survive a scavenge; a request's objects still in flight when one comes can then
# die in the old generation, which only a full collection takes back. Without it, in eight alternated runs, the
# gateway's collector pauses per proxied read fell by about half with the upstream answering at once, and its CPU
# per read fell from 1.65-2.49 to 1.45-1.64 times the bare proxy's; webhook-service and RSS did not move beyond
# their runs' spread (docs/performance.md item 55).
# `npm start` and the compiled runs of the e2e harness and the benchmarks read their node flags from this line.
ENTRYPOINT ["node", "--conditions=compiled", "--max-semi-space-size=2", "--max-old-space-size=256", "--single-threaded-gc", "--invocation-count-for-feedback-allocation=256", "--no-page-promotion", "--no-allocation-site-pretenuring", "--import=@dfc/kit/preload"]
CMD ["services/gateway/dist/main.js"]
