import Router from '@koa/router';
import { listRequest, renderList } from '@dfc/kit/pagination';
import type { Middleware } from 'koa';
import { methodRules, publicPath, requireRole, resourceLocation, type KitState } from '@dfc/kit/http';
import { queryValidator } from '@dfc/kit/validation';
import { FlightRequestGetQuery, FlightRequestListQuery } from '@dfc/contracts';
import type { UseCaseDeps } from '../use-cases/deps.js';
import { cancelFlightRequest } from '../use-cases/cancel-flight-request.js';
import { getFlightRequest } from '../use-cases/get-flight-request.js';
import { listFlightRequests } from '../use-cases/list-flight-requests.js';
import { submitFlightRequest } from '../use-cases/submit-flight-request.js';
import { flightRequestRecord } from './render.js';

const validateGetQuery = queryValidator(FlightRequestGetQuery);
const validateListQuery = queryValidator(FlightRequestListQuery);

/**
 * `/api/flight-requests/preview` is a route of its own (POST): `GET` or `DELETE` on it is a 405
 * with `Allow`, as on any route, not a lookup of a flight request called "preview" (404).
 */
const notThePreviewRoute: Middleware = async (ctx, next) => {
  if ((ctx as { params?: Record<string, string> }).params?.['uuid'] === 'preview') await methodRules()(ctx, next);
  else await next();
};

export function flightRequestsRouter(deps: UseCaseDeps): Router<KitState> {
  const router = new Router<KitState>({ prefix: '/api/flight-requests' });

  router.post('/', requireRole('operator', 'admin'), async (ctx) => {
    const key = ctx.get('Idempotency-Key');
    const request = await submitFlightRequest(deps, {
      principal: ctx.state.principal,
      body: ctx.state.body,
      idempotencyKey: ctx.headers['idempotency-key'] === undefined ? undefined : key,
      requestId: ctx.state.requestId,
      credentials: ctx.get('X-Internal-Token'),
    });
    ctx.status = 201;
    ctx.set('Location', resourceLocation(ctx, `/flight-requests/${request._id}`));
    ctx.body = { data: flightRequestRecord(request) };
  });

  router.get('/', requireRole('operator', 'reviewer', 'admin'), async (ctx) => {
    const query = validateListQuery({ ...ctx.query });
    const request = listRequest(query, ctx.query['page'] !== undefined);
    const page = await listFlightRequests(deps, ctx.state.principal, query, request);
    const filters = { from_date: query.from_date, to_date: query.to_date, status: query.status, operator_uuid: query.operator_uuid };
    ctx.body = renderList(
      request,
      page.items.map((doc) => flightRequestRecord(doc)),
      page,
      publicPath(ctx),
      filters,
    );
  });

  router.get('/:uuid', notThePreviewRoute, requireRole('operator', 'reviewer', 'admin'), async (ctx) => {
    const query = validateGetQuery({ ...ctx.query });
    const request = await getFlightRequest(deps, ctx.state.principal, ctx.params['uuid'] ?? '');
    const includeGeometry = query.include_geometry === 'true' || query.include_geometry === '1';
    ctx.body = { data: flightRequestRecord(request, includeGeometry) };
  });

  router.delete('/:uuid', notThePreviewRoute, requireRole('operator', 'admin'), async (ctx) => {
    const request = await cancelFlightRequest(deps, ctx.state.principal, ctx.params['uuid'] ?? '', ctx.state.body, ctx.state.requestId);
    ctx.body = { data: flightRequestRecord(request) };
  });

  return router;
}
