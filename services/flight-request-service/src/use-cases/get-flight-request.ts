import { NotFoundError } from '@dfc/kit/errors';
import { isUuid, type Principal } from '@dfc/contracts';
import type { FlightRequest } from '../domain/flight-request/flight-request.js';
import { visibleTo } from './access.js';
import type { UseCaseDeps } from './deps.js';

/** GET /api/flight-requests/{uuid}: a malformed uuid names nothing, so it is a 404 like an unknown one. */
export async function getFlightRequest(deps: UseCaseDeps, principal: Principal, uuid: string): Promise<FlightRequest> {
  if (!isUuid(uuid)) throw new NotFoundError();
  return visibleTo(principal, await deps.requests.find(uuid.toLowerCase()));
}
