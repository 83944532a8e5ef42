import { queueName, type Broker } from '@dfc/kit/broker';
import { RoutingKeys, type EventEnvelope, type OperatorChanged } from '@dfc/contracts';
import { applyOperatorChange } from '../use-cases/apply-operator-change.js';
import { applyReviewItemsChange } from '../use-cases/apply-review-items-change.js';
import type { OperatorStore } from '../store/operator-store.js';
import type { ReviewQueueStore } from '../store/review-queue-store.js';
import type { ReviewItemsChanged } from './review-item-events.js';
import type { ZoneChanged } from './zone-events.js';

/** The durable queue of the operator projection. */
export function operatorQueueName(exchange: string): string {
  return queueName(exchange, 'flight-request-service.operators');
}

/** The durable queue of the review queue projection. */
export function reviewQueueName(exchange: string): string {
  return queueName(exchange, 'flight-request-service.review-queue');
}

export function subscribeOperatorProjection(broker: Broker, operators: OperatorStore): Promise<void> {
  return broker.subscribe({
    queue: operatorQueueName(broker.exchangeName),
    bindings: [RoutingKeys.operatorRegistered, RoutingKeys.operatorUpdated],
    handler: (event) => applyOperatorChange(operators, event as EventEnvelope<OperatorChanged>),
  });
}

/** The requests' own review item events, published from their outboxes, keep the review queue. */
export function subscribeReviewQueueProjection(broker: Broker, queue: ReviewQueueStore): Promise<void> {
  return broker.subscribe({
    queue: reviewQueueName(broker.exchangeName),
    bindings: [RoutingKeys.flightRequestReviewItemsChanged],
    handler: (event) => applyReviewItemsChange(queue, event as EventEnvelope<ReviewItemsChanged>),
  });
}

/** Every replica hears every zone change (a broadcast queue of its own) and refreshes its index. */
export function subscribeZoneChanges(broker: Broker, onChange: (zoneId: string) => void): Promise<void> {
  return broker.subscribe({
    queue: 'flight-request-service.zones',
    broadcast: true,
    bindings: [RoutingKeys.zoneChanged],
    handler: async (event) => onChange((event as EventEnvelope<ZoneChanged>).data.zone_id),
  });
}
