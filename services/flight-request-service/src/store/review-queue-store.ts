import type { QueryFilter } from 'mongoose';
import { countUpTo, deleteWhereIn, isDuplicateKey, serialisedPerDocument } from '@dfc/kit/db';
import { afterPosition, COUNT_LIMIT, LIST_TIME_LIMIT_MS, pageOfFound, type ListPage, type ListPosition } from '@dfc/kit/pagination';
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

  /**
   * One page of pending items (of one authority, or of all), oldest first: by `skip` with how many
   * there are (counted up to COUNT_LIMIT), or after a cursor's position.
   */
  async pending(authority: string | null, at: ListPosition): Promise<ListPage<QueuedReviewItem>> {
    const filter: QueryFilter<QueuedReviewItem> = authority === null ? { status: 'pending' } : { authority, status: 'pending' };
    const query = (at.after ? { $and: [filter, afterPosition('created_at', 1, at.after)] } : filter) as QueryFilter<QueuedReviewItem>;
    const [found, total] = await Promise.all([
      this.model
        .find(query)
        .sort({ created_at: 1, _id: 1 })
        .skip(at.skip ?? 0)
        .limit(at.limit + 1)
        .maxTimeMS(LIST_TIME_LIMIT_MS)
        .lean<QueuedReviewItem[]>()
        .exec(),
      at.after ? undefined : countUpTo(this.model, filter, COUNT_LIMIT, LIST_TIME_LIMIT_MS),
    ]);
    return { ...pageOfFound(found, at.limit, (row) => ({ at: row.created_at, id: row._id })), total };
  }

  /** Removes the rows of purged requests. */
  async removeForRequests(flightRequestUuids: string[]): Promise<void> {
    await deleteWhereIn(this.model, 'flight_request_uuid', flightRequestUuids);
  }
}
