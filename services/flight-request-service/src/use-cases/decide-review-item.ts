import { ForbiddenError, NotFoundError } from '@dfc/kit/errors';
import { bodyValidator } from '@dfc/kit/validation';
import { ReviewDecision, type EventEnvelope, type Principal } from '@dfc/contracts';
import { decideItem, pendingAuthorities, type DecisionOutcome } from '../domain/review/review-group.js';
import { transition, type StatusHistoryEntry } from '../domain/state-machine/transitions.js';
import { cascadeRejection, reviewCompleted, statusChanges } from '../events/flight-request-events.js';
import type { FlightRequestDoc } from '../store/flight-request-store.js';
import { actorOf } from './access.js';
import { publishSoon, type UseCaseDeps } from './deps.js';
import { untilUnchanged } from './optimistic.js';

const validateDecision = bodyValidator(ReviewDecision);

export interface DecidedItem {
  request: FlightRequestDoc;
  itemId: string;
}

/**
 * POST /api/reviews/{id}/decision: a reviewer of the item's authority (or an
 * admin) approves or rejects it. A rejection rejects the request and
 * cascade-rejects its other pending items; the last decision completes the
 * group, and approving every item approves the request.
 */
export async function decideReviewItem(
  deps: UseCaseDeps,
  principal: Principal,
  itemId: string,
  body: unknown,
  requestId?: string,
): Promise<DecidedItem> {
  const actor = actorOf(principal);
  return untilUnchanged(async () => {
    const current = await deps.requests.findByItemId(itemId);
    const item = current?.review.items.find((candidate) => candidate.id === itemId);
    if (!current || !item) throw new NotFoundError();
    if (principal.role !== 'admin' && item.authority !== principal.authority) {
      throw new ForbiddenError('This review item belongs to another authority.');
    }
    const { decision, reason } = validateDecision(body);
    const now = deps.now();
    const outcome = decideItem(current.review.items, itemId, { decision, reason, actor, at: now });
    const history = outcome.settles ? [transition(current.status, outcome.settles, { actor, reason, at: now })] : [];
    const changes = {
      ...(outcome.settles ? { status: outcome.settles } : {}),
      status_history: [...current.status_history, ...history],
      review: { ...current.review, items: outcome.items, complete: outcome.completed },
      pending_authorities: pendingAuthorities(outcome.items),
      updated_at: now,
    };
    const events = decisionEvents(current, outcome, history, now, requestId);
    const changeId = await deps.requests.updateIfUnchanged(current, changes, events);
    if (changeId === null) return undefined;
    if (outcome.settles) deps.metrics.requestsByStatus.inc({ status: outcome.settles });
    publishSoon(deps, deps.requests.outboxModel, changeId);
    const request = await deps.requests.findByUuid(current.uuid);
    if (!request) throw new NotFoundError();
    return { request, itemId };
  });
}

/** cascade_rejection (when other items fell with it), review_completed (when none is pending), then the status change. */
function decisionEvents(
  request: FlightRequestDoc,
  outcome: DecisionOutcome,
  history: StatusHistoryEntry[],
  at: Date,
  requestId?: string,
): EventEnvelope[] {
  const subject = { ...request, status: outcome.settles ?? request.status };
  const events: EventEnvelope[] = [];
  if (outcome.cascaded.length > 0) events.push(cascadeRejection(subject, outcome.decided, outcome.cascaded, requestId));
  if (outcome.completed) events.push(reviewCompleted(subject, subject.status, outcome.items, at, requestId));
  events.push(...statusChanges(subject, request.status, history, requestId));
  return events;
}
