import { newEvent } from '@dfc/kit/broker';
import { RoutingKeys, type EventEnvelope } from '@dfc/contracts';

/** zone.changed: tells every replica to reload one zone (or, after an import, `zone_id` null: all zones) into its spatial index. */
export interface ZoneChanged {
  zone_id: string | null;
  action: 'created' | 'updated' | 'deleted' | 'imported';
}

export function zoneChanged(zoneId: string | null, action: ZoneChanged['action'], requestId?: string): EventEnvelope<ZoneChanged> {
  return newEvent(RoutingKeys.zoneChanged, null, { zone_id: zoneId, action }, requestId);
}
