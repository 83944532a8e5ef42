import { ForbiddenError, NotFoundError } from '@dfc/kit/errors';
import { bodyValidator } from '@dfc/kit/validation';
import { ReviewDecision, type Principal } from '@dfc/contracts';
import { decide } from '../domain/flight-request/changes.js';
import type { FlightRequest } from '../domain/flight-request/flight-request.js';
import type { DecisionOutcome, ItemDecision } from '../domain/review/review-group.js';
import { actorOf } from './access.js';
import type { UseCaseDeps } from './deps.js';

const validateDecision = bodyValidator(ReviewDecision);

export interface DecidedItem {
  request: FlightRequest;
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
    const decided = decide(current, itemId, decision, requestId);
    settles = decided.settles;
    return decided.change;
  });
  if (settles) deps.metrics.requestsByStatus.inc({ status: settles });
  return { request, itemId };
}
