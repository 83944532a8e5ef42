import { isUuid } from '@dfc/contracts';
import { NotFoundError } from '@dfc/kit/errors';
import type { OwnerScope } from '../domain/owner-scope.js';
import type { WebhookEndpoint } from '../store/endpoint-model.js';
import type { WebhookDeps } from './delivery-deps.js';

/** An endpoint inside the caller's scope; anything else (another operator's, unknown, not an id) is 404. */
export async function findEndpoint(deps: Pick<WebhookDeps, 'endpoints'>, id: string, scope: OwnerScope): Promise<WebhookEndpoint> {
  const endpoint = isUuid(id) ? await deps.endpoints.findInScope(id.toLowerCase(), scope) : null;
  if (!endpoint) throw new NotFoundError();
  return endpoint;
}
