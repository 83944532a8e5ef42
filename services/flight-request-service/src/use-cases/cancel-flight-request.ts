import { NotFoundError } from '@dfc/kit/errors';
import { bodyValidator } from '@dfc/kit/validation';
import { CancelBody, isUuid, type Principal } from '@dfc/contracts';
import { cancel } from '../domain/flight-request/changes.js';
import type { FlightRequest } from '../domain/flight-request/flight-request.js';
import type { Deconfliction } from '../domain/deconfliction/reservation.js';
import { actorOf, visibleTo } from './access.js';
import { releaseAirspace } from './deconfliction/reserve-airspace.js';
import type { UseCaseDeps } from './deps.js';

const validateCancel = bodyValidator(CancelBody);

/**
 * DELETE /api/flight-requests/{uuid}: Pending or Approved, while the window
 * has not ended, becomes Cancelled; pending review items are withdrawn and
 * the airspace it held is given back to the ledger.
 */
export async function cancelFlightRequest(
  deps: UseCaseDeps,
  principal: Principal,
  uuid: string,
  body: unknown,
  requestId?: string,
): Promise<FlightRequest> {
  if (!isUuid(uuid)) throw new NotFoundError();
  const actor = actorOf(principal);
  let freed: Deconfliction | null = null;
  const cancelled = await deps.requests.change(uuid.toLowerCase(), (current) => {
    visibleTo(principal, current);
    const { reason } = validateCancel(body);
    freed = current.deconfliction ?? null;
    return cancel(current, reason, { actor, at: deps.now(), requestId });
  });
  deps.metrics.requestsByStatus.inc({ status: cancelled.status });
  if (freed) await releaseAirspace(deps, (freed as Deconfliction).claim);
  return visibleTo(principal, cancelled);
}
