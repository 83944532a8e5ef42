import type { AuthorisationStatusRecord } from '@dfc/contracts';
import { approvalOf, authorisationId, type AuthorisableRequest } from './claims.js';

/** Statuses that withdraw an approval: the operator (or an admin) cancelled it, or a new restriction rescinded it. */
const REVOKING = new Set(['Cancelled', 'Rescinded']);

/**
 * What a verifier is told of an authorisation: revoked (cancelled or rescinded)
 * wins over expired, because a withdrawn approval stays withdrawn after its
 * window. Why and when it was withdrawn is the operator's business, not the
 * public's. Null when `position` names no approval of this request.
 */
export function authorisationStatus(request: AuthorisableRequest, position: number, now: Date): AuthorisationStatusRecord | null {
  const approval = approvalOf(request);
  if (!approval || approval.position !== position) return null;
  const jti = authorisationId(request._id, position);
  if (request.status_history.slice(position + 1).some((entry) => REVOKING.has(entry.status))) return { jti, status: 'revoked' };
  return { jti, status: now.getTime() >= request.end_time.getTime() ? 'expired' : 'valid' };
}
