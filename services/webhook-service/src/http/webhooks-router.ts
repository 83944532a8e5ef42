import Router from '@koa/router';
import { listRequest, paginate, renderList } from '@dfc/kit/pagination';
import type { Context } from 'koa';
import { noBodyFields, publicPath, requireRole, resourceLocation, type KitState } from '@dfc/kit/http';
import { queryValidator } from '@dfc/kit/validation';
import { DeliveryListQuery, WebhookListQuery, WebhookScopeQuery } from '@dfc/contracts';
import { ownerScope, type OwnerScope } from '../domain/owner-scope.js';
import { createEndpoint } from '../use-cases/create-endpoint.js';
import { deleteEndpoint } from '../use-cases/delete-endpoint.js';
import type { WebhookDeps } from '../use-cases/delivery-deps.js';
import { findEndpoint } from '../use-cases/find-endpoint.js';
import { listDeliveries } from '../use-cases/list-deliveries.js';
import { listEndpoints } from '../use-cases/list-endpoints.js';
import { redeliver } from '../use-cases/redeliver.js';
import { rotateSecret } from '../use-cases/rotate-secret.js';
import { sendTestPing } from '../use-cases/send-test-ping.js';
import { updateEndpoint } from '../use-cases/update-endpoint.js';
import { renderDelivery, renderEndpoint, renderEndpointWithSecret } from './render.js';

const scopeQuery = queryValidator(WebhookScopeQuery);
const listQuery = queryValidator(WebhookListQuery);
const deliveryQuery = queryValidator(DeliveryListQuery);

type WebhookContext = Context & { state: KitState; params: Record<string, string> };

/** Operators manage their own endpoints; admins anyone's (?operator_uuid); reviewers none (403). */
export function webhooksRouter(deps: WebhookDeps): Router {
  const router = new Router({ prefix: '/api/webhooks' });
  router.use(requireRole('operator', 'admin'));

  router.post('/', async (ctx: WebhookContext) => {
    const created = await createEndpoint(deps, scopeOf(ctx), ctx.state.body);
    ctx.status = 201;
    ctx.set('Location', resourceLocation(ctx, `/webhooks/${created.endpoint._id}`));
    ctx.body = { data: renderEndpointWithSecret(created) };
  });

  router.get('/', async (ctx: WebhookContext) => {
    const query = listQuery({ ...ctx.query });
    const scope = ownerScope(ctx.state.principal, query.operator_uuid);
    const { items, total } = await listEndpoints(deps, scope, query);
    ctx.body = paginate(items.map(renderEndpoint), total, query, publicPath(ctx), { operator_uuid: query.operator_uuid });
  });

  router.get('/:id', async (ctx: WebhookContext) => {
    ctx.body = { data: renderEndpoint(await findEndpoint(deps, param(ctx, 'id'), scopeOf(ctx))) };
  });

  router.patch('/:id', async (ctx: WebhookContext) => {
    ctx.body = { data: renderEndpoint(await updateEndpoint(deps, param(ctx, 'id'), scopeOf(ctx), ctx.state.body)) };
  });

  router.delete('/:id', noBodyFields(), async (ctx: WebhookContext) => {
    await deleteEndpoint(deps, param(ctx, 'id'), scopeOf(ctx));
    ctx.status = 204;
  });

  router.post('/:id/rotate-secret', noBodyFields(), async (ctx: WebhookContext) => {
    ctx.body = { data: renderEndpointWithSecret(await rotateSecret(deps, param(ctx, 'id'), scopeOf(ctx))) };
  });

  router.post('/:id/test', noBodyFields(), async (ctx: WebhookContext) => {
    ctx.status = 202;
    ctx.body = { data: renderDelivery(await sendTestPing(deps, param(ctx, 'id'), scopeOf(ctx))) };
  });

  router.get('/:id/deliveries', async (ctx: WebhookContext) => {
    const query = deliveryQuery({ ...ctx.query });
    const scope = ownerScope(ctx.state.principal, query.operator_uuid);
    const request = listRequest(query, ctx.query['page'] !== undefined);
    const page = await listDeliveries(deps, param(ctx, 'id'), scope, request, query.status);
    ctx.body = renderList(request, page.items.map(renderDelivery), page, publicPath(ctx), {
      operator_uuid: query.operator_uuid,
      status: query.status,
    });
  });

  router.post('/:id/deliveries/:deliveryId/redeliver', noBodyFields(), async (ctx: WebhookContext) => {
    ctx.status = 202;
    ctx.body = { data: renderDelivery(await redeliver(deps, param(ctx, 'id'), param(ctx, 'deliveryId'), scopeOf(ctx))) };
  });

  return router;
}

function scopeOf(ctx: WebhookContext): OwnerScope {
  return ownerScope(ctx.state.principal, scopeQuery({ ...ctx.query }).operator_uuid);
}

function param(ctx: WebhookContext, name: string): string {
  return ctx.params[name] ?? '';
}
