import { randomUUID } from 'node:crypto';
import { ConflictError, NotFoundError } from '@dfc/kit/errors';
import { buildPingBody } from '../domain/webhook-body.js';
import type { OwnerScope } from '../domain/owner-scope.js';
import type { DeliveryWithAttempts } from '../store/delivery-store.js';
import type { WebhookDeps } from './delivery-deps.js';
import { findEndpoint } from './find-endpoint.js';

/** A `ping` event through the normal path: stored, signed, retried and logged like any other. */
export async function sendTestPing(deps: WebhookDeps, id: string, scope: OwnerScope): Promise<DeliveryWithAttempts> {
  const endpoint = await findEndpoint(deps, id, scope);
  if (!endpoint.enabled) throw new ConflictError('The webhook endpoint is disabled; enable it before sending a test event.');
  const now = deps.now();
  const eventId = randomUUID();
  await deps.deliveries.createPending(
    [{ endpoint_id: endpoint._id, operator_uuid: endpoint.operator_uuid, event_id: eventId, event: 'ping', body: buildPingBody(eventId, endpoint._id, now) }],
    now,
  );
  deps.dispatch.kick();
  const delivery = await deps.deliveries.findByEvent(endpoint._id, eventId);
  if (!delivery) throw new NotFoundError();
  return { ...delivery, attempts: [] };
}
