import { ValidationError } from '@dfc/kit/errors';
import { listPosition, type ListPage, type ListRequest } from '@dfc/kit/pagination';
import type { FlightRequestListQuery, Principal } from '@dfc/contracts';
import { parseListFilter } from '../domain/listing/list-filter.js';
import type { FlightRequestSummary } from '../domain/flight-request/flight-request.js';
import type { ListScope } from '../store/flight-request-store.js';
import type { UseCaseDeps } from './deps.js';

/**
 * GET /api/flight-requests: operators see their own, reviewers the requests
 * with an item of their authority, admins all (or one operator's). Dates are
 * whole days in the listed operator's timezone; with no single operator in
 * view (reviewers, admins without operator_uuid) they are UTC days. A page is
 * numbered (`page`) or follows a cursor; either way newest first.
 */
export async function listFlightRequests(
  deps: UseCaseDeps,
  principal: Principal,
  query: FlightRequestListQuery,
  request: ListRequest,
): Promise<ListPage<FlightRequestSummary>> {
  const scope = scopeOf(principal, query);
  const parsed = parseListFilter(query, await listTimezone(deps, scope, query));
  if (!parsed.ok) throw new ValidationError(parsed.errors);
  return deps.requests.list(
    { ...scope, statuses: parsed.filter.statuses, from: parsed.filter.window.from, until: parsed.filter.window.until },
    listPosition(request),
  );
}

/** The listed operator's timezone, read only when a date filter needs it (one database read saved per plain list). */
async function listTimezone(deps: UseCaseDeps, scope: ListScope, query: FlightRequestListQuery): Promise<string> {
  const dated = query.from_date !== undefined || query.to_date !== undefined;
  if (!dated || !scope.operatorUuid) return 'UTC';
  return (await deps.operators.find(scope.operatorUuid))?.timezone ?? 'UTC';
}

function scopeOf(principal: Principal, query: FlightRequestListQuery): ListScope {
  if (principal.role === 'operator') return { operatorUuid: principal.operator_uuid ?? '' };
  if (principal.role === 'reviewer') return { reviewerAuthority: principal.authority ?? '' };
  return query.operator_uuid ? { operatorUuid: query.operator_uuid.toLowerCase() } : {};
}
