/**
 * The broker names this service owns, in one place: the routing key of its
 * own work-queue message and the queues it consumes from or parks messages in
 * (names before the test runs' exchange prefix, `queueName`). The events it
 * turns into webhooks are other services' (`RoutingKeys` in @dfc/contracts).
 */

/** The work-queue message that makes a delivery attempt happen (domain/attempt-message.ts). */
export const ATTEMPT_DUE = 'webhook.attempt_due';

/** The first messages of the deliveries of events fanned out at the same moment, as one broker message (domain/attempt-message.ts). */
export const ATTEMPTS_DUE = 'webhook.attempts_due';

export const Queues = {
  /** The domain events that become webhooks, shared by every replica. */
  events: 'webhook-service.events',
  /** The work queue of delivery attempts, shared by every replica. */
  attempts: 'webhook-service.attempts',
} as const;

/**
 * The delay queue of one delay (see domain/delay-queues.ts): its messages dead-letter back to the
 * work queue. A quorum queue; the classic ones of earlier versions were named
 * `webhook-service.wait.<ms>ms`, and a new name is what lets both stand side by side during an
 * upgrade (a declaration with other arguments than the queue has is refused): those drain into the
 * work queue and remove themselves (docs/operations.md, "Delay queues").
 */
export function delayQueueName(delayMs: number): string {
  return `webhook-service.delay.${delayMs}ms`;
}
