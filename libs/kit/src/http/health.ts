import Router from '@koa/router';
import type { Registry } from 'prom-client';

/** A dependency the service cannot serve its requests without (its database). */
export interface ReadinessCheck {
  name: string;
  ready: () => boolean | Promise<boolean>;
}

/** `/healthz` (the process answers), `/readyz` (its dependencies answer), `/metrics`. */
export function operationsRouter(registry: Registry, checks: ReadinessCheck[]): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const results = await Promise.all(
      checks.map(async (check) => [check.name, await Promise.resolve(check.ready()).catch(() => false)] as const),
    );
    const ready = results.every(([, ok]) => ok);
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not ready', checks: Object.fromEntries(results) };
  });
  router.get('/metrics', async (ctx) => {
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });
  return router;
}
