import type { AuthorisationStatusRecord } from '@dfc/contracts';
import { authorisationId, isApprovalAt, type AuthorisableRequest } from './claims.js';

/** Statuses that withdraw an approval: cancelled by the operator (or an admin), rescinded by a new restriction, rejected while suspended. */
const REVOKING = new Set(['Cancelled', 'Rescinded', 'Rejected']);

/**
 * What a verifier is told of an authorisation: revoked (cancelled, rescinded,
 * rejected after a suspension, or replaced by a later approval) wins over
 * expired, because a withdrawn approval stays withdrawn after its window;
 * suspended while a new authorisation zone has the flight back under review.
 * Why and when is the operator's business, not the public's. Null when
 * `position` names no approval of this request.
 */
export function authorisationStatus(request: AuthorisableRequest, position: number, now: Date): AuthorisationStatusRecord | null {
  if (!isApprovalAt(request, position)) return null;
  const jti = authorisationId(request._id, position);
  const later = request.status_history.slice(position + 1);
  if (later.some((entry) => REVOKING.has(entry.status) || entry.status === 'Approved')) return { jti, status: 'revoked' };
  if (now.getTime() >= request.end_time.getTime()) return { jti, status: 'expired' };
  return { jti, status: request.status === 'Suspended' ? 'suspended' : 'valid' };
}
