import Router from '@koa/router';
import { requireRole, type KitState } from '@dfc/kit/http';
import type { UseCaseDeps } from '../use-cases/deps.js';
import { previewFlightRequest } from '../use-cases/preview-flight-request.js';

/** POST /api/flight-requests/preview: a submission's screening outcome, nothing stored. */
export function previewRouter(deps: UseCaseDeps): Router<KitState> {
  const router = new Router<KitState>();
  router.post('/api/flight-requests/preview', requireRole('operator', 'admin'), async (ctx) => {
    ctx.body = { data: await previewFlightRequest(deps, ctx.state.principal, ctx.state.body, ctx.get('X-Internal-Token')) };
  });
  return router;
}
