import { newEvent, type EventEnvelope, type ReviewItemStatus } from '@dfc/contracts';
import { InternalRoutingKeys } from '../../messaging.js';
import type { ReviewItem } from '../review/review-group.js';

/**
 * flight_request.review_items_changed (internal to this service): the review
 * items of one request as of one version of it, for the review queue
 * projection. Emitted by every change that creates or decides items.
 */
export interface ReviewItemsChanged {
  flight_request_uuid: string;
  /** The request's version after the change: the projection keeps the newest. */
  version: number;
  /** The request's created_at: the queue's order. */
  created_at: string;
  items: Array<{ id: string; authority: string; status: ReviewItemStatus }>;
}

export function reviewItemsChanged(
  request: { _id: string; operator_uuid: string; created_at: Date },
  version: number,
  items: ReviewItem[],
  requestId?: string,
): EventEnvelope<ReviewItemsChanged> {
  return newEvent(
    InternalRoutingKeys.reviewItemsChanged,
    request.operator_uuid,
    {
      flight_request_uuid: request._id,
      version,
      created_at: request.created_at.toISOString(),
      items: items.map((item) => ({ id: item.id, authority: item.authority, status: item.status })),
    },
    requestId,
  );
}
