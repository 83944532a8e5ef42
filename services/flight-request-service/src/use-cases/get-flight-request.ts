import { NotFoundError } from '@dfc/kit/errors';
import type { Principal } from '@dfc/contracts';
import type { FlightRequestDoc } from '../store/flight-request-store.js';
import { visibleTo } from './access.js';
import type { UseCaseDeps } from './deps.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** GET /api/flight-requests/{uuid}: a malformed uuid names nothing, so it is a 404 like an unknown one. */
export async function getFlightRequest(deps: UseCaseDeps, principal: Principal, uuid: string): Promise<FlightRequestDoc> {
  if (!UUID.test(uuid)) throw new NotFoundError();
  return visibleTo(principal, await deps.requests.findByUuid(uuid.toLowerCase()));
}
