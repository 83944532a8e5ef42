import { Schema, type Connection, type Model } from 'mongoose';
import type { ReviewItemStatus } from '@dfc/contracts';

/**
 * The review queue: one document per review item, a projection of the
 * request aggregates written only by the consumer of their
 * `flight_request.review_items_changed` events (see review-queue-store.ts).
 */
export interface QueuedReviewItem {
  /** The item's id. */
  _id: string;
  flight_request_uuid: string;
  authority: string;
  status: ReviewItemStatus;
  /** The request's created_at: the queue is oldest request first. */
  created_at: Date;
  /** The request version the row was projected from: an older event never overwrites it. */
  request_version: number;
}

export type ReviewQueueModel = Model<QueuedReviewItem>;

const reviewQueueSchema = new Schema<QueuedReviewItem>(
  {
    _id: { type: String, required: true },
    flight_request_uuid: { type: String, required: true },
    authority: { type: String, required: true },
    status: { type: String, required: true },
    created_at: { type: Date, required: true },
    request_version: { type: Number, required: true },
  },
  { collection: 'review_items', versionKey: false },
);

// A reviewer's queue (and an admin's filtered by authority), then an admin's whole queue: oldest first, `_id` for stable pages.
reviewQueueSchema.index({ authority: 1, status: 1, created_at: 1, _id: 1 });
reviewQueueSchema.index({ status: 1, created_at: 1, _id: 1 });
// The purge of a request removes its rows.
reviewQueueSchema.index({ flight_request_uuid: 1 });

export function reviewQueueModel(connection: Connection): ReviewQueueModel {
  return connection.models['QueuedReviewItem'] ?? connection.model<QueuedReviewItem>('QueuedReviewItem', reviewQueueSchema);
}
