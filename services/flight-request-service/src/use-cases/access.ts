import { ForbiddenError, NotFoundError } from '@dfc/kit/errors';
import type { Principal } from '@dfc/contracts';
import type { FlightRequestDoc } from '../store/flight-request-store.js';

/** An operator key names only its own operator; admins may name any. */
export function authoriseOperatorUuid(principal: Principal, operatorUuid: string): void {
  if (principal.role === 'admin') return;
  if (principal.role === 'operator' && principal.operator_uuid === operatorUuid) return;
  throw new ForbiddenError('You may only submit flight requests for your own operator.');
}

/**
 * Who may see a request: its operator, a reviewer whose authority has an item
 * on it, an admin. Anyone else gets 404, so existence does not leak.
 */
export function visibleTo(principal: Principal, request: FlightRequestDoc | null): FlightRequestDoc {
  if (request && canSee(principal, request)) return request;
  throw new NotFoundError();
}

function canSee(principal: Principal, request: FlightRequestDoc): boolean {
  switch (principal.role) {
    case 'admin':
      return true;
    case 'operator':
      return principal.operator_uuid === request.operator_uuid;
    case 'reviewer':
      return principal.authority !== undefined && request.review_authorities.includes(principal.authority);
    default:
      return false;
  }
}

/** The actor name of history entries and decisions. */
export function actorOf(principal: Principal): string {
  if (principal.role === 'reviewer') return `reviewer:${principal.authority ?? ''}`;
  return principal.role;
}
