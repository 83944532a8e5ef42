import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError } from '@dfc/kit/errors';
import { isUuid } from '@dfc/contracts';
import { attemptDue } from '../domain/attempt-message.js';
import type { OwnerScope } from '../domain/owner-scope.js';
import type { DeliveryWithAttempts } from '../store/delivery-store.js';
import type { WebhookDeps } from './delivery-deps.js';
import { findEndpoint } from './find-endpoint.js';

/**
 * A failed or succeeded delivery is sent again now, with a fresh round of
 * retries; the same event id, so receivers de-duplicate it if they must.
 * The new message rides in the delivery's outbox, under a new dispatch token.
 */
export async function redeliver(deps: WebhookDeps, id: string, deliveryId: string, scope: OwnerScope): Promise<DeliveryWithAttempts> {
  const endpoint = await findEndpoint(deps, id, scope);
  const delivery = isUuid(deliveryId) ? await deps.deliveries.findForEndpoint(endpoint._id, deliveryId.toLowerCase()) : null;
  if (!delivery) throw new NotFoundError();
  if (!endpoint.enabled) throw new ConflictError('The webhook endpoint is disabled; enable it before redelivering.');
  const now = deps.now();
  const rescheduled = await deps.deliveries.change(delivery._id, (current) => {
    if (current.status === 'pending') throw new ConflictError('The delivery is already scheduled.');
    const dispatch_token = randomUUID();
    return {
      set: { status: 'pending', round_attempts: 0, next_attempt_at: now, dispatch_token, updated_at: now },
      events: [attemptDue({ ...current, dispatch_token })],
    };
  });
  const [withAttempts] = await deps.deliveries.withAttempts([rescheduled]);
  return withAttempts ?? { ...rescheduled, attempts: [] };
}
