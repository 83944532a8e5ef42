import type { QueryFilter } from 'mongoose';
import { isDuplicateKey, serialisedPerDocument } from '@dfc/kit/db';
import type { ReviewQueueModel, QueuedReviewItem } from './review-item-model.js';

/** The review queue: pending items, oldest request first, read a page at a time from its index. */
export class ReviewQueueStore {
  constructor(readonly model: ReviewQueueModel) {}

  /**
   * Idempotent and order-tolerant: each row is replaced only when it was
   * projected from an older version of its request. When it is as new or
   * newer, the filter misses, the upsert's insert hits the `_id`, and the
   * stale row is dropped. The rows of one request are written one event at a
   * time in this process (the conditional write's guard, see the kit's db
   * module).
   */
  project(flightRequestUuid: string, rows: QueuedReviewItem[]): Promise<void> {
    return serialisedPerDocument(this.model.collection.name, flightRequestUuid, async () => {
      try {
        await this.model.bulkWrite(
          rows.map((row) => ({
            updateOne: { filter: { _id: row._id, request_version: { $lt: row.request_version } }, update: { $set: row }, upsert: true },
          })),
          { ordered: false },
        );
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
    });
  }

  /** One page of pending items (of one authority, or of all) and how many there are. */
  async pending(authority: string | null, skip: number, limit: number): Promise<{ rows: QueuedReviewItem[]; total: number }> {
    const filter: QueryFilter<QueuedReviewItem> = authority === null ? { status: 'pending' } : { authority, status: 'pending' };
    const [rows, total] = await Promise.all([
      this.model.find(filter).sort({ created_at: 1, _id: 1 }).skip(skip).limit(limit).lean<QueuedReviewItem[]>().exec(),
      this.model.countDocuments(filter).exec(),
    ]);
    return { rows, total };
  }
}
