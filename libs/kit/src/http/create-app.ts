import Koa from 'koa';
import type Router from '@koa/router';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { requireInternalToken, type InternalTokenVerifier } from '../auth/internal-token.js';
import { errorMiddleware } from './errors.js';
import { operationsRouter, type ReadinessCheck } from './health.js';
import { jsonBody, DEFAULT_BODY_LIMIT_BYTES, type BodyLimit } from './json-body.js';
import { httpMetrics } from './metrics.js';
import { methodRules } from './method-rules.js';
import { requestContext } from './request-context.js';

export interface ServiceAppOptions {
  log: Logger;
  registry: Registry;
  readiness: ReadinessCheck[];
  /** Verifies the gateway's token on every API route. */
  verifier: InternalTokenVerifier;
  /** The service's API routers; all of them sit behind the internal token. */
  routers: Router[];
  bodyLimitBytes?: BodyLimit;
}

/**
 * The common shape of every service's koa app: request id and access log,
 * metrics, the error mapping, operations endpoints (no token: probes and
 * Prometheus reach them inside the cluster), then JSON body, internal token
 * and the service's own routes.
 */
export function createServiceApp(options: ServiceAppOptions): Koa {
  const app = new Koa();
  app.proxy = true;
  app.silent = true;
  const operations = operationsRouter(options.registry, options.readiness);
  app.use(requestContext(options.log));
  app.use(httpMetrics(options.registry));
  app.use(errorMiddleware());
  app.use(operations.routes());
  app.use(jsonBody(options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES));
  app.use(requireInternalToken(options.verifier));
  for (const router of options.routers) app.use(router.routes());
  app.use(methodRules());
  return app;
}
