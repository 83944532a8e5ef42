import { NotFoundError } from '@dfc/kit/errors';
import { bodyValidator } from '@dfc/kit/validation';
import { FlightActivationBody, isUuid, type Principal } from '@dfc/contracts';
import { activate } from '../domain/flight-request/changes.js';
import type { FlightRequest } from '../domain/flight-request/flight-request.js';
import { actorOf, visibleTo } from './access.js';
import type { UseCaseDeps } from './deps.js';

const validateActivation = bodyValidator(FlightActivationBody);

/**
 * POST /api/flight-requests/{uuid}/activate: the operator starts an Approved
 * flight inside its window; it becomes Activated and keeps the airspace it
 * holds on the ledger. Another state, or a time outside the window, is a 409.
 */
export async function activateFlightRequest(
  deps: UseCaseDeps,
  principal: Principal,
  uuid: string,
  body: unknown,
  requestId?: string,
): Promise<FlightRequest> {
  if (!isUuid(uuid)) throw new NotFoundError();
  const activated = await deps.requests.change(uuid.toLowerCase(), (current) => {
    visibleTo(principal, current);
    validateActivation(body);
    return activate(current, { actor: actorOf(principal), at: deps.now(), requestId });
  });
  deps.metrics.requestsByStatus.inc({ status: activated.status });
  return activated;
}
