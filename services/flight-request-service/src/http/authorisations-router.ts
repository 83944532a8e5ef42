import Router from '@koa/router';
import { requireRole, type KitState } from '@dfc/kit/http';
import { checkAuthorisation } from '../use-cases/authorisations/check-authorisation.js';
import { getAuthorisation } from '../use-cases/authorisations/get-authorisation.js';
import type { UseCaseDeps } from '../use-cases/deps.js';

/** Verifiers cache the key set; a rotation publishes the new key before it signs (see README). */
const JWKS_MAX_AGE_SECONDS = 300;

/**
 * Signed authorisations: a request's token (its readers), the token's status
 * and the public keys (anyone: the gateway lets these through without a key).
 */
export function authorisationsRouter(deps: UseCaseDeps): Router<KitState> {
  const router = new Router<KitState>();

  router.get('/api/flight-requests/:uuid/authorisation', requireRole('operator', 'reviewer', 'admin'), async (ctx) => {
    ctx.body = { data: await getAuthorisation(deps, ctx.state.principal, ctx.params['uuid'] ?? '') };
  });

  router.get('/api/authorisations/:jti', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { data: await checkAuthorisation(deps, ctx.params['jti'] ?? '') };
  });

  router.get('/.well-known/jwks.json', (ctx) => {
    ctx.set('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
    ctx.type = 'application/jwk-set+json';
    ctx.body = deps.authorisationKeys.jwks();
  });

  return router;
}
