import Router from '@koa/router';
import { resourceLocation, type KitState } from '@dfc/kit/http';
import { getOperator } from '../use-cases/get-operator.js';
import { registerOperator } from '../use-cases/register-operator.js';
import { updateOperator } from '../use-cases/update-operator.js';
import type { UseCaseDeps } from '../use-cases/deps.js';
import { basicCredentials, callerOf, challengeBasic } from './auth.js';
import { operatorResource } from './resources.js';

/** Spec §4.1, §4.2 and PRODUCT.md's PATCH. Registration is public; reads and changes check the principal. */
export function operatorsRouter(deps: UseCaseDeps): Router<KitState> {
  const router = new Router<KitState>();

  router.post('/api/operators', async (ctx) => {
    const operator = await registerOperator(deps, ctx.state.body, callerOf(ctx.state));
    ctx.status = 201;
    ctx.set('Location', resourceLocation(ctx, `/operators/${operator._id}`));
    ctx.body = { data: operatorResource(operator) };
  });

  router.get('/api/operators/:uuid', async (ctx) => {
    const operator = await getOperator(deps, ctx.params['uuid'] ?? '', callerOf(ctx.state));
    ctx.body = { data: operatorResource(operator) };
  });

  router.patch('/api/operators/:uuid', challengeBasic, async (ctx) => {
    const credentials = basicCredentials(ctx.get('Authorization'));
    const operator = await updateOperator(deps, ctx.params['uuid'] ?? '', ctx.state.body, callerOf(ctx.state), credentials);
    ctx.body = { data: operatorResource(operator) };
  });

  return router;
}
