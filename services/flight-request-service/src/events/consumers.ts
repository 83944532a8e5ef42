import { queueName, type Broker } from '@dfc/kit/broker';
import { RoutingKeys, type EventEnvelope, type OperatorChanged } from '@dfc/contracts';
import { applyOperatorChange } from '../use-cases/apply-operator-change.js';
import type { OperatorStore } from '../store/operator-store.js';
import type { ZoneChanged } from './zone-events.js';

/** The durable queue of the operator projection. */
export function operatorQueueName(exchange: string): string {
  return queueName(exchange, 'flight-request-service.operators');
}

export function subscribeOperatorProjection(broker: Broker, operators: OperatorStore): Promise<void> {
  return broker.subscribe({
    queue: operatorQueueName(broker.exchangeName),
    bindings: [RoutingKeys.operatorRegistered, RoutingKeys.operatorUpdated],
    handler: (event) => applyOperatorChange(operators, event as EventEnvelope<OperatorChanged>),
  });
}

/** Every replica hears every zone change (a broadcast queue of its own) and refreshes its index. */
export function subscribeZoneChanges(broker: Broker, onChange: (zoneId: string | null) => void): Promise<void> {
  return broker.subscribe({
    queue: 'flight-request-service.zones',
    broadcast: true,
    bindings: [RoutingKeys.zoneChanged],
    handler: async (event) => {
      const { zone_id: zoneId } = (event as EventEnvelope<ZoneChanged>).data;
      onChange(typeof zoneId === 'string' ? zoneId : null);
    },
  });
}
