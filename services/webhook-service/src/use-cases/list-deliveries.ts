import type { DeliveryStatus } from '@dfc/contracts';
import type { PageRequest } from '@dfc/kit/pagination';
import type { OwnerScope } from '../domain/owner-scope.js';
import type { DeliveryWithAttempts } from '../store/delivery-store.js';
import type { WebhookDeps } from './delivery-deps.js';
import { findEndpoint } from './find-endpoint.js';

/** The attempt log of one endpoint, newest delivery first. */
export async function listDeliveries(
  deps: WebhookDeps,
  id: string,
  scope: OwnerScope,
  page: PageRequest,
  status?: DeliveryStatus,
): Promise<{ items: DeliveryWithAttempts[]; total: number }> {
  const endpoint = await findEndpoint(deps, id, scope);
  const { items, total } = await deps.deliveries.list(endpoint._id, page, status);
  return { items: await deps.deliveries.withAttempts(items), total };
}
