import { ForbiddenError } from '@dfc/kit/errors';
import type { Principal } from '@dfc/contracts';

/**
 * Whose endpoints a caller may touch: an operator only its own (a query
 * naming another operator changes nothing), an admin any operator's, or all
 * of them when it names none. Records outside the scope are "not found".
 */
export interface OwnerScope {
  /** Null only for an admin acting on every operator. */
  operatorUuid: string | null;
}

export function ownerScope(principal: Principal, requestedOperatorUuid?: string): OwnerScope {
  if (principal.role === 'admin') return { operatorUuid: requestedOperatorUuid ?? null };
  if (principal.role === 'operator' && principal.operator_uuid) return { operatorUuid: principal.operator_uuid };
  throw new ForbiddenError();
}

/** The filter fragment that keeps a query inside the scope. */
export function scopeFilter(scope: OwnerScope): { operator_uuid?: string } {
  return scope.operatorUuid === null ? {} : { operator_uuid: scope.operatorUuid };
}
