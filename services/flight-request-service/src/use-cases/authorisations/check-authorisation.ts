import { NotFoundError } from '@dfc/kit/errors';
import type { AuthorisationStatusRecord } from '@dfc/contracts';
import { parseAuthorisationId } from '../../domain/authorisation/claims.js';
import { authorisationStatus } from '../../domain/authorisation/status.js';
import type { UseCaseDeps } from '../deps.js';

/**
 * GET /api/authorisations/{jti}: public, for whoever holds a token (a police
 * officer, an airport): valid, revoked (cancelled, rescinded or replaced by an amendment) or expired,
 * nothing else. An unknown or malformed id is a 404.
 */
export async function checkAuthorisation(deps: UseCaseDeps, jti: string): Promise<AuthorisationStatusRecord> {
  const id = parseAuthorisationId(jti.toLowerCase());
  const request = id && (await deps.requests.find(id.requestUuid));
  const status = id && request ? authorisationStatus(request, id.position, deps.now()) : null;
  if (!status) throw new NotFoundError();
  return status;
}
