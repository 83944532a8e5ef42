import { isComplete, pendingAuthorities, withdrawPending } from '../domain/review/review-group.js';
import { canTransition, transition } from '../domain/state-machine/transitions.js';
import { statusChanges } from '../events/flight-request-events.js';
import type { FlightRequestDoc } from '../store/flight-request-store.js';
import { publishSoon, type UseCaseDeps } from './deps.js';

const BATCH = 200;
const ACTOR = 'system';
const REASON = 'The start time passed before the review was complete.';

/**
 * PRODUCT.md: a Pending request whose start time passes undecided becomes
 * Expired and its pending items are withdrawn. Each write is conditional on
 * the version read, so several replicas may sweep at once and a decision
 * racing the sweep either lands first (the request is no longer Pending) or
 * finds the request Expired.
 */
export async function expirePendingRequests(deps: UseCaseDeps): Promise<number> {
  let expired = 0;
  for (;;) {
    const now = deps.now();
    const overdue = await deps.requests.overdue(now, BATCH);
    let changed = 0;
    for (const request of overdue) if (await expire(deps, request, now)) changed++;
    expired += changed;
    // A batch where every write lost its race would repeat forever; the next sweep retries those.
    if (overdue.length < BATCH || changed === 0) return expired;
  }
}

async function expire(deps: UseCaseDeps, request: FlightRequestDoc, now: Date): Promise<boolean> {
  if (!canTransition(request.status, 'Expired')) return false;
  const entry = transition(request.status, 'Expired', { actor: ACTOR, reason: REASON, at: now });
  const items = withdrawPending(request.review.items, ACTOR, now, REASON);
  const changes = {
    status: entry.status,
    status_history: [...request.status_history, entry],
    review: { ...request.review, items, complete: isComplete(items) },
    pending_authorities: pendingAuthorities(items),
    updated_at: now,
  };
  const changeId = await deps.requests.updateIfUnchanged(request, changes, statusChanges(request, request.status, [entry]));
  if (changeId === null) return false;
  deps.metrics.requestsByStatus.inc({ status: entry.status });
  publishSoon(deps, deps.requests.outboxModel, changeId);
  return true;
}
