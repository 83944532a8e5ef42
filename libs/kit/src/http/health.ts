import Router from '@koa/router';
import type { Registry } from 'prom-client';

/** A dependency the service cannot serve its requests without (its database). */
export interface ReadinessCheck {
  name: string;
  ready: () => boolean | Promise<boolean>;
}

/**
 * `/healthz` (the process answers), `/readyz` (its dependencies answer) and, unless the process
 * serves its metrics on a listener of their own (`metricsOnly`), `/metrics`.
 */
export function operationsRouter(registry: Registry, checks: ReadinessCheck[], options: { metrics: boolean } = { metrics: true }): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const results = await Promise.all(checks.map(async (check) => [check.name, await Promise.resolve(check.ready()).catch(() => false)] as const));
    const ready = results.every(([, ok]) => ok);
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not ready', checks: Object.fromEntries(results) };
  });
  if (options.metrics) router.get('/metrics', metricsHandler(registry));
  return router;
}

function metricsHandler(registry: Registry) {
  return async (ctx: { type: string; body: unknown }) => {
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  };
}

/** A router answering `/metrics` alone: for a listener on an internal port, where a public one must not show them. */
export function metricsOnly(registry: Registry): Router {
  return new Router().get('/metrics', metricsHandler(registry));
}
