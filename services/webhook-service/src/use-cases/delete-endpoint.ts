import { NotFoundError } from '@dfc/kit/errors';
import type { OwnerScope } from '../domain/owner-scope.js';
import type { WebhookDeps } from './delivery-deps.js';
import { findEndpoint } from './find-endpoint.js';

/** The endpoint and its delivery log go together; a message still on the broker finds no delivery and is dropped. */
export async function deleteEndpoint(deps: WebhookDeps, id: string, scope: OwnerScope): Promise<void> {
  const endpoint = await findEndpoint(deps, id, scope);
  if (!(await deps.endpoints.remove(endpoint._id))) throw new NotFoundError();
  await deps.deliveries.removeForEndpoint(endpoint._id);
}
