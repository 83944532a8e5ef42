import Router from '@koa/router';
import { requireRole, type KitState } from '@dfc/kit/http';
import { verifyApiKey } from '../use-cases/verify-api-key.js';
import type { UseCaseDeps } from '../use-cases/deps.js';

/** Service-to-service routes: the gateway (role `system`) only. Never routed by the gateway. */
export function internalRouter(deps: UseCaseDeps): Router<KitState> {
  const router = new Router<KitState>();

  router.post('/internal/api-keys/verify', requireRole('system'), async (ctx) => {
    ctx.body = { data: await verifyApiKey(deps, ctx.state.body) };
  });

  return router;
}
