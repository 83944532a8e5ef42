import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError } from '@dfc/kit/errors';
import { pingPayload } from '../domain/public-payload.js';
import type { OwnerScope } from '../domain/owner-scope.js';
import type { DeliveryWithAttempts } from '../store/delivery-store.js';
import type { WebhookDeps } from './delivery-deps.js';
import { createDelivery } from './fan-out-event.js';
import { findEndpoint } from './find-endpoint.js';

/** A `ping` event through the normal path: stored, signed, retried and logged like any other. */
export async function sendTestPing(deps: WebhookDeps, id: string, scope: OwnerScope): Promise<DeliveryWithAttempts> {
  const endpoint = await findEndpoint(deps, id, scope);
  if (!endpoint.enabled) throw new ConflictError('The webhook endpoint is disabled; enable it before sending a test event.');
  const now = deps.now();
  const delivery = await createDelivery(deps, endpoint, pingPayload(randomUUID(), endpoint._id, now), now);
  if (!delivery) throw new NotFoundError();
  return { ...delivery, attempts: [] };
}
