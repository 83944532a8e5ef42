import { ConflictError, NotFoundError } from '@dfc/kit/errors';
import type { OwnerScope } from '../domain/owner-scope.js';
import type { DeliveryWithAttempts } from '../store/delivery-store.js';
import type { WebhookDeps } from './delivery-deps.js';
import { isUuid } from '@dfc/contracts';
import { findEndpoint } from './find-endpoint.js';

/**
 * A failed or succeeded delivery is sent again now, with a fresh round of
 * retries; the same event id, so receivers de-duplicate it if they must.
 */
export async function redeliver(deps: WebhookDeps, id: string, deliveryId: string, scope: OwnerScope): Promise<DeliveryWithAttempts> {
  const endpoint = await findEndpoint(deps, id, scope);
  const delivery = isUuid(deliveryId) ? await deps.deliveries.findForEndpoint(endpoint._id, deliveryId.toLowerCase()) : null;
  if (!delivery) throw new NotFoundError();
  if (!endpoint.enabled) throw new ConflictError('The webhook endpoint is disabled; enable it before redelivering.');
  if (delivery.status === 'pending') throw new ConflictError('The delivery is already scheduled.');
  if (!(await deps.deliveries.reschedule(endpoint._id, delivery._id, deps.now()))) {
    throw new ConflictError('The delivery is already scheduled.');
  }
  deps.dispatch.kick();
  const rescheduled = await deps.deliveries.findForEndpoint(endpoint._id, delivery._id);
  if (!rescheduled) throw new NotFoundError();
  const [withAttempts] = await deps.deliveries.withAttempts([rescheduled]);
  return withAttempts ?? { ...rescheduled, attempts: [] };
}
