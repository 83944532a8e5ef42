import type { OperatorProjection, OperatorProjectionModel } from './operator-model.js';

const DUPLICATE_KEY = 11000;

export class OperatorStore {
  constructor(readonly model: OperatorProjectionModel) {}

  find(uuid: string): Promise<OperatorProjection | null> {
    return this.model.findById(uuid, { _id: 0 }).lean<OperatorProjection>().exec();
  }

  /**
   * Idempotent and order-tolerant: the upsert only matches a projection older
   * than the event; when a newer one exists the filter misses, the upsert's
   * insert hits the unique uuid, and the stale event is dropped.
   */
  async apply(projection: OperatorProjection): Promise<void> {
    try {
      await this.model.updateOne(
        { _id: projection.uuid, source_at: { $lte: projection.source_at } },
        { $set: projection },
        { upsert: true },
      );
    } catch (error) {
      if ((error as { code?: number }).code !== DUPLICATE_KEY) throw error;
    }
  }
}
