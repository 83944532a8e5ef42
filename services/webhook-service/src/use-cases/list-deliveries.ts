import type { DeliveryStatus } from '@dfc/contracts';
import { listPosition, type ListPage, type ListRequest } from '@dfc/kit/pagination';
import type { OwnerScope } from '../domain/owner-scope.js';
import type { DeliveryWithAttempts } from '../store/delivery-store.js';
import type { WebhookDeps } from './delivery-deps.js';
import { findEndpoint } from './find-endpoint.js';

/** The attempt log of one endpoint, newest delivery first: a numbered page, or the page after a cursor. */
export async function listDeliveries(
  deps: WebhookDeps,
  id: string,
  scope: OwnerScope,
  request: ListRequest,
  status?: DeliveryStatus,
): Promise<ListPage<DeliveryWithAttempts>> {
  const endpoint = await findEndpoint(deps, id, scope);
  const page = await deps.deliveries.list(endpoint._id, listPosition(request), status);
  return { ...page, items: await deps.deliveries.withAttempts(page.items) };
}
