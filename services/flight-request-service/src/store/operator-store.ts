import { isDuplicateKey } from '@dfc/kit/db';
import type { OperatorProjection, OperatorProjectionModel, StoredOperator } from './operator-model.js';

export class OperatorStore {
  constructor(readonly model: OperatorProjectionModel) {}

  async find(uuid: string): Promise<OperatorProjection | null> {
    const stored = await this.model.findById(uuid).lean<StoredOperator>().exec();
    if (!stored) return null;
    const { _id, ...fields } = stored;
    return { uuid: _id, ...fields };
  }

  /**
   * Idempotent and order-tolerant: the upsert only matches a projection older
   * than the event; when a newer one exists the filter misses, the upsert's
   * insert hits the `_id`, and the stale event is dropped.
   */
  async apply(projection: OperatorProjection): Promise<void> {
    const { uuid, ...fields } = projection;
    try {
      await this.model.updateOne({ _id: uuid, source_at: { $lte: projection.source_at } }, { $set: fields }, { upsert: true });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }
}
