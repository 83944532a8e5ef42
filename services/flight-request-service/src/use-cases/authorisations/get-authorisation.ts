import { NotFoundError } from '@dfc/kit/errors';
import { toOffsetTimestamp, type AuthorisationRecord, type Principal } from '@dfc/contracts';
import { authorisationClaims, currentApproval } from '../../domain/authorisation/claims.js';
import type { UseCaseDeps } from '../deps.js';
import { getFlightRequest } from '../get-flight-request.js';

/**
 * GET /api/flight-requests/{uuid}/authorisation: whoever may read the request
 * gets its signed authorisation while it is Approved or Activated (404 otherwise). The token
 * is signed on demand from the stored approval, so it is the same token every
 * time (until the signing key is rotated) and nothing is stored for it.
 */
export async function getAuthorisation(deps: UseCaseDeps, principal: Principal, uuid: string): Promise<AuthorisationRecord> {
  const request = await getFlightRequest(deps, principal, uuid);
  const approval = currentApproval(request);
  if (!approval) throw new NotFoundError();
  const operator = await deps.operators.find(request.operator_uuid);
  const claims = authorisationClaims(request, approval, operator?.registration_number ?? null);
  return {
    token: await deps.authorisationKeys.sign(claims),
    jti: claims.jti,
    kid: deps.authorisationKeys.kid,
    expires_at: toOffsetTimestamp(request.end_time),
    claims,
  };
}
