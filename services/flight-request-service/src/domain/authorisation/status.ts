import { toOffsetTimestamp, type AuthorisationStatusRecord } from '@dfc/contracts';
import { approvalOf, authorisationId, type AuthorisableRequest } from './claims.js';

/** Statuses that withdraw an approval: the operator (or an admin) cancelled it, or a new restriction rescinded it. */
const REVOKING = new Set(['Cancelled', 'Rescinded']);

export interface RevocableRequest extends AuthorisableRequest {
  /** Set when a zone rescinded the approval. */
  rescission?: { zone_id: string } | null;
}

/**
 * What a verifier is told of an authorisation: revoked (with the status that
 * revoked it, the reason and, for a rescission, the zone) wins over expired,
 * because a withdrawn approval stays withdrawn after its window. Null when
 * `position` names no approval of this request.
 */
export function authorisationStatus(request: RevocableRequest, position: number, now: Date): AuthorisationStatusRecord | null {
  const approval = approvalOf(request);
  if (!approval || approval.position !== position) return null;
  const base = { jti: authorisationId(request._id, position), expires_at: toOffsetTimestamp(request.end_time) };
  const withdrawal = request.status_history.slice(position + 1).find((entry) => REVOKING.has(entry.status));
  if (withdrawal) {
    return {
      ...base,
      status: 'revoked',
      revocation: {
        status: withdrawal.status,
        reason: withdrawal.reason,
        at: toOffsetTimestamp(withdrawal.at),
        zone_id: withdrawal.status === 'Rescinded' ? (request.rescission?.zone_id ?? null) : null,
      },
    };
  }
  return { ...base, status: now.getTime() >= request.end_time.getTime() ? 'expired' : 'valid', revocation: null };
}
