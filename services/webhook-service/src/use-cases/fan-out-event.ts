import { randomUUID } from 'node:crypto';
import { schemaErrors } from '@dfc/kit/validation';
import {
  EventEnvelope,
  FlightRequestAmended,
  FlightRequestCascadeRejection,
  FlightRequestRestrictionNotice,
  FlightRequestReviewCompleted,
  FlightRequestStatusChanged,
  OperatorCredentialsChanged,
  WEBHOOK_KIND_BY_ROUTING_KEY,
  type WebhookPayload,
} from '@dfc/contracts';
import { attemptDue, firstAttemptDue } from '../domain/attempt-message.js';
import { deliveryId } from '../domain/delivery-id.js';
import { publicPayload, type FannedOutKind } from '../domain/public-payload.js';
import type { WebhookEndpoint } from '../store/endpoint-model.js';
import type { NewDelivery } from '../store/delivery-store.js';
import type { Delivery } from '../store/delivery-model.js';
import type { WebhookDeps } from './delivery-deps.js';

/**
 * A domain event → one pending delivery per subscribed endpoint of the
 * event's operator (never anyone else's), all in one write, then each
 * delivery's first work-queue message (carrying the delivery, see
 * `firstAttemptDue`), handed to the scheduler together (one broker message,
 * `AttemptsDue`). Resolves only once every delivery is stored and the
 * broker has every message, so the domain event is acked after that and
 * stays on its durable queue until then: the event is the outbox of its
 * deliveries. A message handled again meets the unique (event, endpoint)
 * index and creates nothing new; when the broker redelivers it (a crash or a
 * failure after the write), the deliveries it had stored and never attempted
 * get their message again, naming the delivery alone, so the attempt reads it
 * first and drops it when a message sent before the crash got there first.
 */
export async function fanOutEvent(deps: WebhookDeps, event: EventEnvelope, redelivered = false): Promise<number> {
  const kind = WEBHOOK_KIND_BY_ROUTING_KEY[event.type];
  if (!kind || kind === 'ping') return 0;
  if (!isWellFormed(event, kind) || event.operator_uuid === null) {
    deps.log.error({ event_id: (event as { id?: unknown }).id, type: event.type }, 'malformed event skipped');
    return 0;
  }
  // The account's security notice goes to every enabled endpoint; everything else to those subscribed to its kind.
  const subscribers =
    kind === 'credentials_changed'
      ? await deps.endpoints.findEnabled(event.operator_uuid)
      : await deps.endpoints.findSubscribers(event.operator_uuid, kind);
  if (subscribers.length === 0) return 0;
  const body = publicPayload(event, kind);
  const now = deps.now();
  const created = await deps.deliveries.createEach(subscribers.map((endpoint) => newDelivery(endpoint, body, new Date(event.occurred_at), now)));
  await deps.scheduler.now(created.map(firstAttemptDue));
  if (redelivered && created.length < subscribers.length) await dispatchStoredBefore(deps, body.id, created);
  return subscribers.length;
}

/** The deliveries of the event stored by an earlier handling and never attempted since: their message may never have been sent. */
async function dispatchStoredBefore(deps: WebhookDeps, eventId: string, created: Delivery[]): Promise<void> {
  const justCreated = new Set(created.map((delivery) => delivery._id));
  const earlier = (await deps.deliveries.unattempted(eventId)).filter((delivery) => !justCreated.has(delivery._id));
  await deps.scheduler.now(earlier.map(attemptDue));
}

/** A delivery of `payload` to `endpoint`, due now; null when it exists already. */
export async function createDelivery(
  deps: Pick<WebhookDeps, 'deliveries' | 'now'>,
  endpoint: WebhookEndpoint,
  payload: WebhookPayload,
  eventCreatedAt: Date,
) {
  const delivery = newDelivery(endpoint, payload, eventCreatedAt, deps.now());
  return deps.deliveries.create(delivery, attemptDue(delivery));
}

/** A pending delivery, due now, under a fresh dispatch token; its id names the (event, endpoint) pair. */
export function newDelivery(endpoint: WebhookEndpoint, payload: WebhookPayload, eventCreatedAt: Date, now: Date): NewDelivery {
  return {
    _id: deliveryId(payload.id, endpoint._id),
    endpoint_id: endpoint._id,
    operator_uuid: endpoint.operator_uuid,
    event_id: payload.id,
    event: payload.event,
    body: JSON.stringify(payload),
    event_created_at: eventCreatedAt,
    status: 'pending',
    attempt_count: 0,
    round_attempts: 0,
    next_attempt_at: now,
    dispatch_token: randomUUID(),
    created_at: now,
    updated_at: now,
  };
}

const INTERNAL_SCHEMAS = {
  status_change: FlightRequestStatusChanged,
  cascade_rejection: FlightRequestCascadeRejection,
  review_complete: FlightRequestReviewCompleted,
  amendment: FlightRequestAmended,
  credentials_changed: OperatorCredentialsChanged,
  restriction_notice: FlightRequestRestrictionNotice,
};

/** The envelope and its data as the internal contract has them; a malformed event cannot be delivered to anyone. */
function isWellFormed(event: EventEnvelope, kind: FannedOutKind): boolean {
  return Object.keys(schemaErrors(EventEnvelope, event)).length === 0 && Object.keys(schemaErrors(INTERNAL_SCHEMAS[kind], event.data)).length === 0;
}
