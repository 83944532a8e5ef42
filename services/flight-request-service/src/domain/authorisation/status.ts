import type { AuthorisationStatusRecord, FlightRequestStatus } from '@dfc/contracts';
import { approvalAt, authorisationId, type AuthorisableRequest } from './claims.js';

/**
 * Entries that withdraw an approval: the operator (or an admin) cancelled it, a new restriction
 * rescinded it, its authority rejected it while suspended, or an amendment or a later approval
 * replaced it (sent back to review, or approved again under a new authorisation).
 */
const REVOKING: ReadonlySet<FlightRequestStatus> = new Set(['Cancelled', 'Rescinded', 'Rejected', 'Pending', 'Approved']);

/**
 * What a verifier is told of an authorisation: revoked (cancelled, rescinded,
 * rejected after a suspension, or superseded) wins over expired, because a
 * withdrawn approval stays withdrawn after its window; suspended while a new
 * authorisation zone has the flight back under review; a flight Activated on
 * it is valid, an Ended one expired. Why and when is the operator's business,
 * not the public's. Null when `position` names no approval of this request.
 */
export function authorisationStatus(request: AuthorisableRequest, position: number, now: Date): AuthorisationStatusRecord | null {
  if (!approvalAt(request, position)) return null;
  const jti = authorisationId(request._id, position);
  const later = request.status_history.slice(position + 1);
  if (later.some((entry) => REVOKING.has(entry.status))) return { jti, status: 'revoked' };
  const over = request.status === 'Ended' || now.getTime() >= request.end_time.getTime();
  if (over) return { jti, status: 'expired' };
  return { jti, status: request.status === 'Suspended' ? 'suspended' : 'valid' };
}
