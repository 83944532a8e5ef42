import type { EventEnvelope } from '@dfc/contracts';
import type { ReviewItemsChanged } from '../domain/events/review-item-events.js';
import type { ReviewQueueStore } from '../store/review-queue-store.js';

/** flight_request.review_items_changed → the review queue projection (one row per item). */
export async function applyReviewItemsChange(queue: ReviewQueueStore, event: EventEnvelope<ReviewItemsChanged>): Promise<void> {
  const { flight_request_uuid: flightRequestUuid, version, created_at: createdAt, items } = event.data;
  await queue.project(
    flightRequestUuid,
    items.map((item) => ({
      _id: item.id,
      flight_request_uuid: flightRequestUuid,
      authority: item.authority,
      status: item.status,
      created_at: new Date(createdAt),
      request_version: version,
    })),
  );
}
