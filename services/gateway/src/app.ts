import Koa, { type Next } from 'koa';
import type { Registry } from 'prom-client';
import type { OpenApiDocument } from '@dfc/contracts';
import { errorMiddleware, httpMetrics, methodRules, metricsOnly, operationsRouter, requestContext } from '@dfc/kit/http';
import { type Logger } from '@dfc/kit/logging';
import type { PublicOriginOf } from './domain/public-origin.js';
import type { TileLayer } from './domain/tile-layer.js';
import { canonicalPath } from './domain/routing.js';
import { consoleAssets, isConsolePath } from './http/console.js';
import { corsForOrigins } from './http/cors.js';
import { docsRouter, isDocumentPath } from './http/docs.js';
import { proxyRoutes, type ProxyRouteDeps } from './http/proxy-routes.js';
import { requirePublicOrigin } from './http/public-origin.js';
import { closeUnfinishedRequests } from './http/unfinished-requests.js';

export interface GatewayDeps extends ProxyRouteDeps {
  log: Logger;
  registry: Registry;
  openApiDocument: OpenApiDocument;
  /** The console's build (apps/console/dist); tests point it elsewhere. */
  consoleDirectory?: string;
  /** The console maps' tile layer (CONSOLE_TILE_*); absent or null: the shipped Natural Earth basemap. */
  consoleTiles?: TileLayer | null;
  /** Where links point (PUBLIC_BASE_URL, or an allowed Host). */
  publicOriginOf: PublicOriginOf;
  /** `CORS_ALLOWED_ORIGINS`; empty: CORS off. */
  corsAllowedOrigins: string;
}

/**
 * The public entry. Not `createServiceApp`: the gateway verifies no internal
 * token, it signs them. Request id, metrics, the error mapping and operations
 * endpoints are the kit's; then `/api/v1` is folded onto `/api`, the gateway
 * serves its own documents, and every other API route is proxied. Whatever is
 * left is the error middleware's 404.
 */
export function buildApp(deps: GatewayDeps): Koa {
  const app = new Koa();
  app.proxy = deps.trustProxy;
  // One trusted hop: the client is the address the load balancer appended last.
  app.maxIpsCount = deps.trustProxy ? 1 : 0;
  app.silent = true;
  app.on('error', (error: Error) => deps.log.warn({ err: error.message }, 'response stream failed'));
  const docs = docsRouter(deps.openApiDocument);
  app.use(requestContext(deps.log));
  app.use(httpMetrics(deps.registry));
  app.use(closeUnfinishedRequests());
  app.use(errorMiddleware());
  // Ready once listening, with no checks: it needs neither the broker (a revocation missed while
  // it is away still ends with the key cache's TTL) nor any one upstream (a route whose service
  // is down answers 503 by itself, the others keep working).
  app.use(onlyFor((path) => !path.startsWith('/api/'), operationsRouter(deps.registry, [], { metrics: false }).routes()));
  // Probes above reach the pods by address (and /metrics, on METRICS_PORT alone: the public port never shows them);
  // everything a client reads links back to the gateway.
  app.use(requirePublicOrigin(deps.publicOriginOf));
  const cors = corsForOrigins(deps.corsAllowedOrigins);
  if (cors !== undefined) app.use(cors);
  app.use((ctx, next) => {
    const path = canonicalPath(ctx.path);
    if (path !== ctx.path) ctx.path = path;
    return next();
  });
  app.use(onlyFor(isConsolePath, consoleAssets(deps.consoleDirectory, deps.consoleTiles ?? null)));
  app.use(onlyFor(isDocumentPath, docs.routes()));
  app.use(onlyFor(isDocumentPath, methodRules()));
  app.use(proxyRoutes(deps));
  return app;
}

/** The internal listener's app (METRICS_PORT): `/metrics` and nothing else. */
export function buildMetricsApp(registry: Registry): Koa {
  const app = new Koa();
  app.use(metricsOnly(registry).routes());
  return app;
}

/** Runs a router only where it has routes, so the hot (proxied) path skips its matching. */
function onlyFor<C extends { path: string }>(matches: (path: string) => boolean, middleware: (ctx: C, next: Next) => unknown) {
  return (ctx: C, next: Next) => (matches(ctx.path) ? middleware(ctx, next) : next());
}
