import { ForbiddenError, NotFoundError } from '@dfc/kit/errors';
import type { Principal } from '@dfc/contracts';
import type { FlightRequest } from '../domain/flight-request/flight-request.js';

/** What deciding who may see a request reads of it. */
type Audience = Pick<FlightRequest, 'operator_uuid' | 'review_authorities'>;

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
export function visibleTo<R extends Audience>(principal: Principal, request: R | null): R {
  if (request && canSee(principal, request)) return request;
  throw new NotFoundError();
}

function canSee(principal: Principal, request: Audience): boolean {
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
