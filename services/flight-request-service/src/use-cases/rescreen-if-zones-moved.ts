import type { FlightRequest } from '../domain/flight-request/flight-request.js';
import type { ZoneEpoch } from '../store/zone-epoch-store.js';
import type { UseCaseDeps } from './deps.js';
import { rescreenForZone } from './rescreen-for-zone.js';

/**
 * After a submission is stored: when the zone map's epoch is no longer the
 * one its screening began at, a zone change ended meanwhile, and the
 * rescreening of that change may have queried the live requests before this
 * one was stored. The request is then screened again here against every
 * zone its area meets, as the rescreening would (zones it was screened
 * against already add nothing), and returned as it is now. With the
 * rescreening's own new epoch, this leaves no request screened against an
 * old map unrescreened (docs/architecture.md, "Zone freshness").
 */
export async function rescreenIfZonesMoved(
  deps: UseCaseDeps,
  request: FlightRequest,
  screenedAt: ZoneEpoch,
  requestId?: string,
): Promise<FlightRequest> {
  if ((await deps.zoneSync.current()) === screenedAt) return request;
  const [west = 0, south = 0, east = 0, north = 0] = request.area.bbox;
  for (const zone of deps.zoneIndex.search([west, south, east, north])) await rescreenForZone(deps, zone.id, 'updated', requestId, request._id);
  return (await deps.requests.find(request._id)) ?? request;
}
