import { Schema, type Connection, type Model } from 'mongoose';
import { deleteWhereIn, driverCollection, isDuplicateKey } from '@dfc/kit/db';
import type { IdempotencyClaim } from '../domain/idempotency/idempotency.js';

/** One document per (operator, Idempotency-Key), under `_id` = their digest (`idempotencyRef`): never a public id. */
interface StoredClaim {
  _id: string;
  request_uuid: string;
  body_sha256: string;
  created_at: Date;
}

export type IdempotencyKeyModel = Model<StoredClaim>;

const claimSchema = new Schema<StoredClaim>(
  {
    _id: { type: String, required: true },
    request_uuid: { type: String, required: true },
    body_sha256: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'idempotency_keys', versionKey: false },
);
// The purge of a request removes the claims that name it.
claimSchema.index({ request_uuid: 1 });

export function idempotencyKeyModel(connection: Connection): IdempotencyKeyModel {
  return connection.models['IdempotencyKey'] ?? connection.model<StoredClaim>('IdempotencyKey', claimSchema);
}

/**
 * Which request an operator's Idempotency-Key names. The first submission under a key claims it with
 * a random request uuid; the unique `_id` decides between concurrent first uses, and every later use
 * reads the claim that won.
 */
export class IdempotencyKeyStore {
  constructor(readonly model: IdempotencyKeyModel) {}

  /** The claim stored under `ref`: `candidate` when this call made it, else the one made before. */
  async claim(ref: string, candidate: IdempotencyClaim): Promise<IdempotencyClaim> {
    const existing = await this.find(ref);
    if (existing) return existing;
    try {
      await driverCollection(this.model).insertOne({ _id: ref, ...candidate });
      return candidate;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const winner = await this.find(ref);
      if (!winner) throw new Error(`idempotency key ${ref} collided but cannot be read`, { cause: error });
      return winner;
    }
  }

  /** Removes the claims naming purged requests: a key used again afterwards is a first use. */
  async removeForRequests(requestUuids: string[]): Promise<void> {
    await deleteWhereIn(this.model, 'request_uuid', requestUuids);
  }

  private async find(ref: string): Promise<IdempotencyClaim | null> {
    const stored = await driverCollection(this.model).findOne({ _id: ref });
    return stored && { request_uuid: stored.request_uuid, body_sha256: stored.body_sha256, created_at: stored.created_at };
  }
}
