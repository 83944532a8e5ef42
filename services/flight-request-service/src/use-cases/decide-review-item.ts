import { ForbiddenError, NotFoundError } from '@dfc/kit/errors';
import type { Change } from '@dfc/kit/outbox';
import { bodyValidator } from '@dfc/kit/validation';
import { ReviewDecision, type EventEnvelope, type Principal } from '@dfc/contracts';
import { decideItem, type DecisionOutcome, type ItemDecision } from '../domain/review/review-group.js';
import { transition, type StatusHistoryEntry } from '../domain/state-machine/transitions.js';
import { cascadeRejection, reviewCompleted, statusChanges } from '../domain/events/flight-request-events.js';
import { reviewItemsChanged } from '../domain/events/review-item-events.js';
import type { FlightRequestDoc } from '../store/flight-request-store.js';
import { actorOf } from './access.js';
import type { UseCaseDeps } from './deps.js';

const validateDecision = bodyValidator(ReviewDecision);

export interface DecidedItem {
  request: FlightRequestDoc;
  itemId: string;
}

/**
 * POST /api/reviews/{id}/decision: a reviewer of the item's authority (or an
 * admin) approves or rejects it. A rejection rejects the request and
 * cascade-rejects its other pending items; the last decision completes the
 * group, and approving every item approves the request. The request that
 * owns the item is found by the item id (indexed), then changed as a whole.
 */
export async function decideReviewItem(
  deps: UseCaseDeps,
  principal: Principal,
  itemId: string,
  body: unknown,
  requestId?: string,
): Promise<DecidedItem> {
  const uuid = await deps.requests.uuidOfItem(itemId);
  if (!uuid) throw new NotFoundError();
  const actor = actorOf(principal);
  let settles: DecisionOutcome['settles'] = null;
  const request = await deps.requests.change(uuid, (current) => {
    const item = current.review.items.find((candidate) => candidate.id === itemId);
    if (!item) throw new NotFoundError();
    if (principal.role !== 'admin' && item.authority !== principal.authority) {
      throw new ForbiddenError('This review item belongs to another authority.');
    }
    const decision: ItemDecision = { ...validateDecision(body), actor, at: deps.now() };
    const outcome = decideItem(current.review.items, itemId, decision);
    settles = outcome.settles;
    return decided(current, outcome, decision, requestId);
  });
  if (settles) deps.metrics.requestsByStatus.inc({ status: settles });
  return { request, itemId };
}

function decided(current: FlightRequestDoc, outcome: DecisionOutcome, decision: ItemDecision, requestId?: string): Change<FlightRequestDoc> {
  const history = outcome.settles ? [transition(current.status, outcome.settles, decision)] : [];
  return {
    set: {
      ...(outcome.settles ? { status: outcome.settles } : {}),
      status_history: [...current.status_history, ...history],
      review: { ...current.review, items: outcome.items, complete: outcome.completed },
      updated_at: decision.at,
    },
    events: [
      ...decisionEvents(current, outcome, history, decision.at, requestId),
      reviewItemsChanged(current, current.version + 1, outcome.items, requestId),
    ],
  };
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
  events.push(...statusChanges(subject, request.status_history, history, requestId));
  return events;
}
