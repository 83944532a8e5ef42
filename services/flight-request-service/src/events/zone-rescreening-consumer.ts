import { queueName, type Broker } from '@dfc/kit/broker';
import { RoutingKeys, type EventEnvelope } from '@dfc/contracts';
import type { ZoneChanged } from './zone-events.js';

/** The durable queue the replicas share (competing consumers): each zone event is rescreened by one replica. */
export function zoneRescreeningQueueName(exchange: string): string {
  return queueName(exchange, 'flight-request-service.zone-rescreening');
}

/**
 * zone.changed (created or updated) → screen the requests the zone may now
 * affect again. A deleted zone restricts nothing new. Redeliveries (a crash
 * mid-way) are harmless: every request records the zone version it was screened against.
 */
export function subscribeZoneRescreening(broker: Broker, rescreen: (zoneId: string, requestId?: string) => Promise<unknown>): Promise<void> {
  return broker.subscribe({
    queue: zoneRescreeningQueueName(broker.exchangeName),
    bindings: [RoutingKeys.zoneChanged],
    // One zone at a time per replica: a rescreening may touch thousands of requests.
    prefetch: 1,
    handler: async (event) => {
      const { zone_id: zoneId, action } = (event as EventEnvelope<ZoneChanged>).data;
      if (action !== 'deleted') await rescreen(zoneId, event.request_id);
    },
  });
}
