# One image for all services; SERVICE picks which one runs.
# TypeScript runs through tsx (no separate compile step to drift from the sources).
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/contracts/package.json libs/contracts/
COPY libs/kit/package.json libs/kit/
COPY services/gateway/package.json services/gateway/
COPY services/operator-service/package.json services/operator-service/
COPY services/flight-request-service/package.json services/flight-request-service/
COPY services/webhook-service/package.json services/webhook-service/
COPY e2e/package.json e2e/
RUN npm ci --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY . .
USER node
ARG SERVICE=gateway
ENV SERVICE=${SERVICE}
CMD ["sh", "-c", "exec node --import tsx services/${SERVICE}/src/main.ts"]
