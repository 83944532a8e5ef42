import { newEvent, type EventEnvelope } from '@dfc/contracts';
import { InternalRoutingKeys } from '../../messaging.js';

/** zone.changed: tells every replica to reload one zone into its spatial index. */
export interface ZoneChanged {
  zone_id: string;
  action: 'created' | 'updated' | 'deleted';
}

export function zoneChanged(zoneId: string, action: ZoneChanged['action'], requestId?: string): EventEnvelope<ZoneChanged> {
  return newEvent(InternalRoutingKeys.zoneChanged, null, { zone_id: zoneId, action }, requestId);
}
