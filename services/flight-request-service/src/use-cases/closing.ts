import { isComplete, withdrawPending } from '../domain/review/review-group.js';
import type { Change } from '@dfc/kit/outbox';
import type { StatusHistoryEntry } from '../domain/state-machine/transitions.js';
import { reviewItemsChanged } from '../domain/events/review-item-events.js';
import { statusChanges } from '../domain/events/flight-request-events.js';
import type { FlightRequestDoc } from '../store/flight-request-store.js';

/**
 * The change of a request that a cancellation or the expiry ends: the new
 * history entry, its pending items withdrawn, and the events of both.
 */
export function closing(current: FlightRequestDoc, entry: StatusHistoryEntry, withdrawReason: string, requestId?: string): Change<FlightRequestDoc> {
  const items = withdrawPending(current.review.items, entry.actor, entry.at, withdrawReason);
  const withdrawn = items.some((item, index) => item.status !== current.review.items[index]?.status);
  return {
    set: {
      status: entry.status,
      status_history: [...current.status_history, entry],
      review: { ...current.review, items, complete: isComplete(items) },
      updated_at: entry.at,
    },
    events: [
      ...statusChanges(current, current.status_history, [entry], requestId),
      ...(withdrawn ? [reviewItemsChanged(current, current.version + 1, items, requestId)] : []),
    ],
  };
}
