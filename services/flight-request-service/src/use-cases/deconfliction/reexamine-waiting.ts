import { decide } from '../../domain/flight-request/changes.js';
import type { FlightRequest } from '../../domain/flight-request/flight-request.js';
import { AirspaceTakenError } from '../../domain/deconfliction/airspace-taken.js';
import { areasIntersect } from '../../domain/geometry/flight-area.js';
import { applyDecision } from '../decide-review-item.js';
import type { UseCaseDeps } from '../deps.js';
import { flightsHolding, volumeOf } from './reserve-airspace.js';

const RESOLVED = 'The overlapping flight no longer holds the airspace.';

/**
 * An Approved flight gave its airspace up (cancelled, rescinded): every
 * other operator's Pending request that waited for deconfliction over it is
 * examined again. When no approved flight overlaps it any more, its
 * deconfliction item is closed by the system; if that was its last pending
 * item, the request is approved through the ledger like any other approval
 * (and stays pending when another flight has taken the airspace meanwhile).
 * A redelivered event finds the items closed already and changes nothing.
 */
export async function reexamineWaiting(deps: UseCaseDeps, freedUuid: string, requestId?: string): Promise<number> {
  const freed = await deps.requests.find(freedUuid);
  if (!freed) return 0;
  const waiting = await deps.requests.overlapping('Pending', freed.operator_uuid, freed.start_time, freed.end_time, freed.area.bbox);
  let resolved = 0;
  for (const candidate of waiting) {
    if (!areasIntersect(freed.geometry.polygons, candidate.polygons)) continue;
    if (await resolveIfClear(deps, candidate.uuid, requestId)) resolved += 1;
  }
  return resolved;
}

async function resolveIfClear(deps: UseCaseDeps, uuid: string, requestId?: string): Promise<boolean> {
  const request = await deps.requests.find(uuid);
  const item = request?.review.items.find((candidate) => candidate.kind === 'deconfliction' && candidate.status === 'pending');
  if (!request || !item || (await stillOverlapped(deps, request))) return false;
  try {
    await applyDecision(deps, uuid, (current) =>
      decide(current, item.id, { decision: 'approve', reason: RESOLVED, actor: 'system', at: deps.now() }, requestId),
    );
    return true;
  } catch (error) {
    if (error instanceof AirspaceTakenError) return false;
    throw error;
  }
}

async function stillOverlapped(deps: UseCaseDeps, request: FlightRequest): Promise<boolean> {
  const approved = await flightsHolding(deps, volumeOf(request));
  return approved.some((flight) => areasIntersect(request.geometry.polygons, flight.polygons));
}
