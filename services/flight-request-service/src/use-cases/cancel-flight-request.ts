import { bodyValidator } from '@dfc/kit/validation';
import { CancelBody, type Principal } from '@dfc/contracts';
import { isComplete, pendingAuthorities, withdrawPending } from '../domain/review/review-group.js';
import { cancellation } from '../domain/state-machine/transitions.js';
import { statusChanges } from '../events/flight-request-events.js';
import type { FlightRequestDoc } from '../store/flight-request-store.js';
import { actorOf, visibleTo } from './access.js';
import { publishSoon, type UseCaseDeps } from './deps.js';
import { getFlightRequest } from './get-flight-request.js';
import { untilUnchanged } from './optimistic.js';

const validateCancel = bodyValidator(CancelBody);

/**
 * DELETE /api/flight-requests/{uuid}: Pending or Approved, while the window
 * has not ended, becomes Cancelled; pending review items are withdrawn.
 */
export async function cancelFlightRequest(
  deps: UseCaseDeps,
  principal: Principal,
  uuid: string,
  body: unknown,
  requestId?: string,
): Promise<FlightRequestDoc> {
  const actor = actorOf(principal);
  return untilUnchanged(async () => {
    const current = await getFlightRequest(deps, principal, uuid);
    const { reason } = validateCancel(body);
    const now = deps.now();
    const entry = cancellation(current, { actor, reason, at: now });
    const items = withdrawPending(current.review.items, actor, now, 'The flight request was cancelled.');
    const changes = {
      status: entry.status,
      cancellation: { reason, cancelled_at: now },
      status_history: [...current.status_history, entry],
      review: { ...current.review, items, complete: isComplete(items) },
      pending_authorities: pendingAuthorities(items),
      updated_at: now,
    };
    const events = statusChanges(current, current.status, [entry], requestId);
    const changeId = await deps.requests.updateIfUnchanged(current, changes, events);
    if (changeId === null) return undefined;
    deps.metrics.requestsByStatus.inc({ status: entry.status });
    publishSoon(deps, deps.requests.outboxModel, changeId);
    return visibleTo(principal, await deps.requests.findByUuid(current.uuid));
  });
}
