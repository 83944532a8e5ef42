import type { PageRequest } from '@dfc/kit';
import type { DeliveryStatus } from '@dfc/contracts';
import type { OwnerScope } from '../domain/owner-scope.js';
import type { Delivery } from '../store/delivery-model.js';
import type { WebhookDeps } from './delivery-deps.js';
import { findEndpoint } from './find-endpoint.js';

/** The attempt log of one endpoint, newest delivery first. */
export async function listDeliveries(
  deps: WebhookDeps,
  id: string,
  scope: OwnerScope,
  page: PageRequest,
  status?: DeliveryStatus,
): Promise<{ items: Delivery[]; total: number }> {
  const endpoint = await findEndpoint(deps, id, scope);
  return deps.deliveries.list(endpoint._id, page, status);
}
