import Router from '@koa/router';
import { paginate } from '@dfc/kit/pagination';
import { noBodyFields, publicPath, requireRole, type KitState } from '@dfc/kit/http';
import { queryValidator } from '@dfc/kit/validation';
import { ApiKeyListQuery, OperatorApiKeyListQuery } from '@dfc/contracts';
import { issueOperatorKey, issueStaffKey } from '../use-cases/issue-api-key.js';
import { listAllKeys, listOperatorKeys } from '../use-cases/list-api-keys.js';
import { revokeAnyKey, revokeOperatorKey } from '../use-cases/revoke-api-key.js';
import type { UseCaseDeps } from '../use-cases/deps.js';
import { basicCredentials, callerOf, challengeBasic, requireKey } from './auth.js';
import { apiKeyResource, issuedKeyResource } from './resources.js';

const parseOperatorListQuery = queryValidator(OperatorApiKeyListQuery);
const parseListQuery = queryValidator(ApiKeyListQuery);

/**
 * An operator's own keys (issued with email + password; listed and revoked
 * with those, the operator's key or an admin key) and the staff keys that
 * admins issue.
 */
export function apiKeysRouter(deps: UseCaseDeps): Router<KitState> {
  const router = new Router<KitState>();
  const operatorKeys = '/api/operators/:uuid/api-keys';

  router.post(operatorKeys, challengeBasic, async (ctx) => {
    const credentials = basicCredentials(ctx.get('Authorization'));
    const issued = await issueOperatorKey(deps, ctx.params['uuid'] ?? '', credentials, ctx.state.body, callerOf(ctx.state));
    ctx.status = 201;
    ctx.body = { data: issuedKeyResource(issued) };
  });

  router.get(operatorKeys, challengeBasic, async (ctx) => {
    const credentials = basicCredentials(ctx.get('Authorization'));
    const query = parseOperatorListQuery({ ...ctx.query });
    const page = await listOperatorKeys(deps, ctx.params['uuid'] ?? '', credentials, query, callerOf(ctx.state));
    ctx.body = paginate(page.items.map(apiKeyResource), page.total, query, publicPath(ctx), { status: query.status });
  });

  router.delete(`${operatorKeys}/:id`, challengeBasic, noBodyFields(), async (ctx) => {
    const credentials = basicCredentials(ctx.get('Authorization'));
    await revokeOperatorKey(deps, ctx.params['uuid'] ?? '', ctx.params['id'] ?? '', credentials, callerOf(ctx.state));
    ctx.status = 204;
  });

  router.post('/api/api-keys', requireKey, requireRole('admin'), async (ctx) => {
    const issued = await issueStaffKey(deps, ctx.state.body);
    ctx.status = 201;
    ctx.body = { data: issuedKeyResource(issued) };
  });

  router.get('/api/api-keys', requireKey, requireRole('admin'), async (ctx) => {
    const query = parseListQuery({ ...ctx.query });
    const page = await listAllKeys(deps, query);
    const { status, role, operator_uuid, authority } = query;
    ctx.body = paginate(page.items.map(apiKeyResource), page.total, query, publicPath(ctx), { status, role, operator_uuid, authority });
  });

  router.delete('/api/api-keys/:id', requireKey, requireRole('admin'), noBodyFields(), async (ctx) => {
    await revokeAnyKey(deps, ctx.params['id'] ?? '', callerOf(ctx.state));
    ctx.status = 204;
  });

  return router;
}
