import { ForbiddenError, NotFoundError, UnauthenticatedError } from '@dfc/kit/errors';
import type { Principal } from '@dfc/contracts';

/**
 * Who may see or change an operator. Another operator's uuid answers 404, as
 * if it did not exist (PRODUCT.md: no existence leak); a role that may never
 * do this is 403; no key at all is 401.
 */
export function assertCanReadOperator(principal: Principal, operatorUuid: string): void {
  if (principal.role === 'reviewer' || principal.role === 'admin') return;
  assertIsOperatorOrAdmin(principal, operatorUuid);
}

/** Changing an operator (its contact fields, its keys): the operator itself or an admin. */
export function assertIsOperatorOrAdmin(principal: Principal, operatorUuid: string): void {
  switch (principal.role) {
    case 'admin':
      return;
    case 'operator':
      if (principal.operator_uuid !== operatorUuid) throw new NotFoundError();
      return;
    case 'anonymous':
      throw new UnauthenticatedError();
    default:
      throw new ForbiddenError();
  }
}
