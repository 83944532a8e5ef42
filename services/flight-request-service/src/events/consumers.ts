import { queueName, type Broker } from '@dfc/kit/broker';
import { RoutingKeys, type EventEnvelope, type FlightRequestStatusChanged, type OperatorChanged } from '@dfc/contracts';
import type { ReviewItemsChanged } from '../domain/events/review-item-events.js';
import { holdsAirspace } from '../domain/deconfliction/reservation.js';
import type { ZoneChanged } from '../domain/events/zone-events.js';
import { InternalRoutingKeys, Queues } from '../messaging.js';

/*
 * The service's subscriptions: which queue hears which events, and the
 * handler (a use case, wired in service.ts) each event is handed to.
 */

export function subscribeOperatorProjection(broker: Broker, apply: (event: EventEnvelope<OperatorChanged>) => Promise<void>): Promise<void> {
  return broker.subscribe({
    queue: queueName(broker.exchangeName, Queues.operators),
    bindings: [RoutingKeys.operatorRegistered, RoutingKeys.operatorUpdated],
    handler: (event) => apply(event as EventEnvelope<OperatorChanged>),
  });
}

/** The requests' own review item events, published from their outboxes, keep the review queue. */
export function subscribeReviewQueueProjection(broker: Broker, apply: (event: EventEnvelope<ReviewItemsChanged>) => Promise<void>): Promise<void> {
  return broker.subscribe({
    queue: queueName(broker.exchangeName, Queues.reviewQueue),
    bindings: [InternalRoutingKeys.reviewItemsChanged],
    handler: (event) => apply(event as EventEnvelope<ReviewItemsChanged>),
  });
}

/** Every replica hears every zone change (a broadcast queue of its own) and refreshes its index. */
export function subscribeZoneChanges(broker: Broker, onChange: (zoneId: string) => void): Promise<void> {
  return broker.subscribe({
    queue: Queues.zones,
    broadcast: true,
    bindings: [InternalRoutingKeys.zoneChanged],
    handler: (event) => {
      onChange((event as EventEnvelope<ZoneChanged>).data.zone_id);
      return Promise.resolve();
    },
  });
}

/**
 * zone.changed → screen the requests the zone may now affect again, on one
 * replica (competing consumers); a deleted (or retired) zone restricts nothing
 * new, and only what it suspended is reinstated. Redeliveries (a crash
 * mid-way) are harmless: every request records the zone version it was
 * screened against.
 */
export function subscribeZoneRescreening(
  broker: Broker,
  rescreen: (zoneId: string, action: ZoneChanged['action'], requestId?: string) => Promise<unknown>,
): Promise<void> {
  return broker.subscribe({
    queue: queueName(broker.exchangeName, Queues.zoneRescreening),
    bindings: [InternalRoutingKeys.zoneChanged],
    // One zone at a time per replica: a rescreening may touch thousands of requests.
    prefetch: 1,
    handler: async (event) => {
      const { zone_id: zoneId, action } = (event as EventEnvelope<ZoneChanged>).data;
      await rescreen(zoneId, action, event.request_id);
    },
  });
}

/**
 * A request that held airspace (Approved or Suspended) and became Cancelled,
 * Rescinded or Rejected gave it up: the requests waiting for deconfliction
 * over it are examined again, on one replica (competing consumers);
 * redeliveries change nothing twice.
 */
export function subscribeReexamination(broker: Broker, reexamine: (uuid: string, requestId?: string) => Promise<unknown>): Promise<void> {
  return broker.subscribe({
    queue: queueName(broker.exchangeName, Queues.reexamination),
    bindings: [RoutingKeys.flightRequestStatusChanged],
    handler: async (event) => {
      const { flight_request_uuid: uuid, previous_status: previous, status } = (event as EventEnvelope<FlightRequestStatusChanged>).data;
      if (previous !== null && holdsAirspace(previous) && !holdsAirspace(status)) await reexamine(uuid, event.request_id);
    },
  });
}
