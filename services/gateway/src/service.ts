import { buildOpenApiDocument } from '@dfc/contracts';
import { createHttpServer, InternalTokenSigner, processBodyBudget } from '@dfc/kit/http';
import type { Service, ServiceResources } from '@dfc/kit/service';
import { buildApp, buildMetricsApp } from './app.js';
import { tileLayerOf, type GatewayConfig } from './config.js';
import { publicOriginResolver } from './domain/public-origin.js';
import { consumeRevocations } from './events/revocations.js';
import { RateLimits } from './http/rate-limit.js';
import { KeyCache } from './store/key-cache.js';
import { SharedLimitStore } from './store/limit-store.js';
import { InternalTokenCache } from './store/token-cache.js';
import { operatorServiceKeyVerifier } from './upstream/key-verification.js';
import { Upstreams } from './upstream/proxy.js';

/** Wires the gateway: key cache and its revocation consumer, rate limits, token signer, upstream proxies. */
export function createGatewayService({ config, broker, log, registry }: ServiceResources<GatewayConfig>): Service {
  const limitStore = new SharedLimitStore(config.RATE_LIMIT_MONGO_URL, config.RATE_LIMIT_MONGO_DB, config.RATE_LIMIT_MONGO_MAX_POOL_SIZE);
  const tokens = new InternalTokenCache(new InternalTokenSigner(config.INTERNAL_TOKEN_PRIVATE_KEY));
  const keys = new KeyCache(config.KEY_CACHE_TTL_MS);
  const upstreams = new Upstreams({
    targets: {
      'operator-service': config.OPERATOR_SERVICE_URL,
      'flight-request-service': config.FLIGHT_REQUEST_SERVICE_URL,
      'webhook-service': config.WEBHOOK_SERVICE_URL,
    },
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    maxSockets: config.UPSTREAM_MAX_SOCKETS,
    maxWaiting: config.UPSTREAM_MAX_WAITING,
    connectionMaxRequests: config.UPSTREAM_CONNECTION_MAX_REQUESTS,
    connectionTtlMs: config.UPSTREAM_CONNECTION_TTL_MS,
  });
  const app = buildApp({
    log,
    registry,
    openApiDocument: buildOpenApiDocument(),
    keys,
    verify: operatorServiceKeyVerifier(upstreams, tokens, config.KEY_VERIFY_TIMEOUT_MS, log),
    rateLimits: new RateLimits(
      {
        perKeyPerMinute: config.RATE_LIMIT_PER_KEY_PER_MINUTE,
        publicPerIpPerMinute: config.RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE,
        failedAuthPerIpPerMinute: config.RATE_LIMIT_FAILED_AUTH_PER_IP_PER_MINUTE,
        failedLoginsPerAccount: config.RATE_LIMIT_FAILED_LOGINS_PER_ACCOUNT,
        failedLoginWindowSeconds: config.RATE_LIMIT_FAILED_LOGIN_WINDOW_SECONDS,
        authorisationChecksPerIpPerMinute: config.RATE_LIMIT_AUTHORISATION_CHECKS_PER_IP_PER_MINUTE,
      },
      limitStore,
    ),
    bodyBudget: processBodyBudget(),
    tokens,
    upstreams,
    trustProxy: config.TRUST_PROXY,
    publicOriginOf: publicOriginResolver({ baseUrl: config.PUBLIC_BASE_URL, allowedHosts: config.ALLOWED_HOSTS, port: config.PORT }),
    corsAllowedOrigins: config.CORS_ALLOWED_ORIGINS,
    consoleTiles: tileLayerOf(config),
  });
  const metricsServer = createHttpServer(buildMetricsApp(registry));
  return {
    app,
    async start() {
      await new Promise<void>((resolve, reject) => {
        metricsServer.once('error', reject);
        metricsServer.listen(config.METRICS_PORT, config.HOST, () => resolve());
      });
      log.info({ port: config.METRICS_PORT }, 'metrics listening');
      limitStore.prepare((error) => log.warn({ err: error }, 'rate limit counters: indexes or expiry failed'));
      await consumeRevocations(broker, keys, log);
    },
    async stop() {
      await new Promise<void>((resolve) => metricsServer.close(() => resolve()));
      await upstreams.close();
      await limitStore.close();
    },
  };
}
