import { NotFoundError } from '@dfc/kit/errors';
import { bodyValidator } from '@dfc/kit/validation';
import { FlightEndBody, isUuid, type Principal } from '@dfc/contracts';
import { end } from '../domain/flight-request/changes.js';
import type { FlightRequest } from '../domain/flight-request/flight-request.js';
import type { Deconfliction } from '../domain/deconfliction/reservation.js';
import { actorOf, visibleTo } from './access.js';
import { releaseAirspace } from './deconfliction/reserve-airspace.js';
import type { UseCaseDeps } from './deps.js';

const validateEnd = bodyValidator(FlightEndBody);

/**
 * POST /api/flight-requests/{uuid}/end: an Activated flight becomes Ended;
 * the same write frees its airspace, and the ledger cells are tidied after.
 * An Approved flight that never flew is cancelled instead (409 here).
 */
export async function endFlightRequest(
  deps: UseCaseDeps,
  principal: Principal,
  uuid: string,
  body: unknown,
  requestId?: string,
): Promise<FlightRequest> {
  if (!isUuid(uuid)) throw new NotFoundError();
  let freed: Deconfliction | null = null;
  const ended = await deps.requests.change(uuid.toLowerCase(), (current) => {
    visibleTo(principal, current);
    const { reason } = validateEnd(body);
    freed = current.deconfliction ?? null;
    return end(current, reason ?? null, { actor: actorOf(principal), at: deps.now(), requestId });
  });
  deps.metrics.requestsByStatus.inc({ status: ended.status });
  const released = freed as Deconfliction | null;
  if (released) await releaseAirspace(deps, released.claim);
  return ended;
}
