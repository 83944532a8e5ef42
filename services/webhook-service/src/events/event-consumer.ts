import type { Broker } from '@dfc/kit/broker';
import { RoutingKeys, type EventEnvelope } from '@dfc/contracts';

/** The domain events that become webhooks (architecture.md, Events). */
export const WEBHOOK_SOURCE_EVENTS = [
  RoutingKeys.flightRequestStatusChanged,
  RoutingKeys.flightRequestCascadeRejection,
  RoutingKeys.flightRequestReviewCompleted,
  RoutingKeys.operatorCredentialsChanged,
];

/** Domain events a replica fans out at once: its events queue's prefetch. */
export const EVENT_WINDOW = 32;

/**
 * One durable quorum queue shared by every replica. The kit's Broker acks a
 * message only after the handler resolved (deliveries stored), and requeues
 * it when the handler throws (e.g. the database is down).
 */
export async function consumeWebhookEvents(
  broker: Broker,
  queue: string,
  handle: (event: EventEnvelope, redelivered: boolean) => Promise<void>,
): Promise<void> {
  await broker.subscribe({
    queue,
    bindings: WEBHOOK_SOURCE_EVENTS,
    handler: (event, raw) => handle(event, raw.fields.redelivered),
    prefetch: EVENT_WINDOW,
  });
}
