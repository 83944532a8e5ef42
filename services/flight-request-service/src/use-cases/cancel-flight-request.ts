import { NotFoundError } from '@dfc/kit/errors';
import { bodyValidator } from '@dfc/kit/validation';
import { CancelBody, isUuid, type Principal } from '@dfc/contracts';
import { cancellation } from '../domain/state-machine/transitions.js';
import type { FlightRequestDoc } from '../store/flight-request-store.js';
import { actorOf, visibleTo } from './access.js';
import { closing } from './closing.js';
import type { UseCaseDeps } from './deps.js';

const validateCancel = bodyValidator(CancelBody);
const WITHDRAWN = 'The flight request was cancelled.';

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
  if (!isUuid(uuid)) throw new NotFoundError();
  const actor = actorOf(principal);
  const cancelled = await deps.requests.change(uuid.toLowerCase(), (current) => {
    visibleTo(principal, current);
    const { reason } = validateCancel(body);
    const now = deps.now();
    const entry = cancellation(current, { actor, reason, at: now });
    const change = closing(current, entry, WITHDRAWN, requestId);
    return { ...change, set: { ...change.set, cancellation: { reason, cancelled_at: now } } };
  });
  deps.metrics.requestsByStatus.inc({ status: cancelled.status });
  return visibleTo(principal, cancelled);
}
