import { schemaErrors } from '@dfc/kit/validation';
import { EventEnvelope, WEBHOOK_KIND_BY_ROUTING_KEY, type SubscribableWebhookKind } from '@dfc/contracts';
import { buildWebhookBody } from '../domain/webhook-body.js';
import type { WebhookDeps } from './delivery-deps.js';

/**
 * A domain event → one pending delivery per subscribed endpoint of the
 * event's operator (never anyone else's). Resolves only once the deliveries
 * are stored, so the broker message is acked after that and a crash in
 * between means a redelivered message, which the unique (event, endpoint)
 * index turns into nothing new. Then the dispatcher is woken: the first
 * attempt goes out at once, not on the next poll.
 */
export async function fanOutEvent(deps: WebhookDeps, event: EventEnvelope): Promise<number> {
  const kind = WEBHOOK_KIND_BY_ROUTING_KEY[event.type];
  if (!kind || kind === 'ping') return 0;
  if (!isWellFormed(event) || !isObject(event.data) || event.operator_uuid === null) {
    deps.log.error({ event_id: (event as { id?: unknown }).id, type: event.type }, 'malformed event skipped');
    return 0;
  }
  const subscribers = await deps.endpoints.findSubscribers(event.operator_uuid, kind as SubscribableWebhookKind);
  const body = buildWebhookBody(event, kind);
  if (subscribers.length === 0) return 0;
  // Sent from memory when there is room (leased to this replica at creation), else left to the poll.
  const handOver = deps.dispatch.hasRoomFor(subscribers.length);
  const created = await deps.deliveries.createPending(
    subscribers.map((endpoint) => ({ endpoint_id: endpoint._id, operator_uuid: endpoint.operator_uuid, event_id: event.id, event: kind, body })),
    deps.now(),
    handOver ? deps.policy.leaseMs : undefined,
  );
  const endpoints = new Map(subscribers.map((endpoint) => [endpoint._id, endpoint]));
  if (handOver) deps.dispatch.handOver(created.map((delivery) => ({ delivery, endpoint: endpoints.get(delivery.endpoint_id) })));
  else deps.dispatch.kick();
  return subscribers.length;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The envelope as the contract has it (formats included); a malformed one cannot be delivered to anyone. */
function isWellFormed(event: EventEnvelope): boolean {
  return Object.keys(schemaErrors(EventEnvelope, event)).length === 0;
}
