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
# Files stay root-owned and read-only to the process; any numeric uid works (k8s sets 10001 too).
USER 10001:10001
EXPOSE 8080
# "compiled": the workspace packages resolve to dist/*.js (package.json exports), not to src/*.ts.
# No other node option: the heap limit and V8's pool size go with the memory limit and CPU where those are
# set (k8s/base, docker-compose.yml: NODE_OPTIONS), and NODE_OPTIONS=--enable-source-maps maps stack traces when debugging.
ENTRYPOINT ["node", "--conditions=compiled"]
CMD ["services/gateway/dist/main.js"]
