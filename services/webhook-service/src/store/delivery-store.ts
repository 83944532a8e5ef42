import { randomUUID } from 'node:crypto';
import type { PageRequest } from '@dfc/kit';
import { skipFor } from '@dfc/kit';
import type { DeliveryStatus } from '@dfc/contracts';
import type { Delivery, DeliveryModel, StoredAttempt } from './delivery-model.js';

const DUPLICATE_KEY = 11000;

export type NewDelivery = Pick<Delivery, 'endpoint_id' | 'operator_uuid' | 'event_id' | 'event' | 'body'>;

/** A delivery this dispatcher holds the lease of. */
export type ClaimedDelivery = Delivery & { lease_token: string };

export interface AttemptRecord {
  attempt: StoredAttempt;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
}

export interface QueueStats {
  pending: number;
  oldestPendingAt: Date | null;
}

export class DeliveryStore {
  constructor(private readonly model: DeliveryModel) {}

  /**
   * Stores one pending delivery per (event, endpoint). The unique index
   * makes this idempotent: when the broker hands the same message over
   * again, the existing deliveries are kept and the duplicates ignored.
   */
  async createPending(deliveries: NewDelivery[], now: Date): Promise<void> {
    if (deliveries.length === 0) return;
    const documents = deliveries.map((delivery) => pendingDocument(delivery, now));
    try {
      await this.model.insertMany(documents, { ordered: false });
    } catch (error) {
      if (!onlyDuplicates(error)) throw error;
    }
  }

  /**
   * Atomically takes the oldest due delivery whose lease is free, skipping
   * endpoints this dispatcher already keeps busy. The lease makes it safe to
   * run several replicas; an expired lease (a crashed replica) frees it again.
   */
  async claimDue(now: Date, leaseMs: number, busyEndpoints: string[]): Promise<ClaimedDelivery | null> {
    const token = randomUUID();
    const claimed = await this.model
      .findOneAndUpdate(
        {
          status: 'pending',
          next_attempt_at: { $lte: now },
          $or: [{ lease_until: null }, { lease_until: { $lte: now } }],
          ...(busyEndpoints.length > 0 ? { endpoint_id: { $nin: busyEndpoints } } : {}),
        },
        { $set: { lease_until: new Date(now.getTime() + leaseMs), lease_token: token } },
        { sort: { next_attempt_at: 1 }, returnDocument: 'after' },
      )
      .lean<Delivery>()
      .exec();
    return claimed ? { ...claimed, lease_token: token } : null;
  }

  /** Saves an attempt and what comes next; only the lease holder may. */
  async recordAttempt(delivery: ClaimedDelivery, record: AttemptRecord, now: Date): Promise<boolean> {
    const result = await this.model
      .updateOne(
        { _id: delivery._id, lease_token: delivery.lease_token },
        {
          $push: { attempts: record.attempt },
          $inc: { attempt_count: 1, round_attempts: 1 },
          $set: { status: record.status, next_attempt_at: record.nextAttemptAt, lease_until: null, lease_token: null, updated_at: now },
        },
      )
      .exec();
    return result.modifiedCount === 1;
  }

  findForEndpoint(endpointId: string, deliveryId: string): Promise<Delivery | null> {
    return this.model.findOne({ _id: deliveryId, endpoint_id: endpointId }).lean<Delivery>().exec();
  }

  findByEvent(endpointId: string, eventId: string): Promise<Delivery | null> {
    return this.model.findOne({ event_id: eventId, endpoint_id: endpointId }).lean<Delivery>().exec();
  }

  async list(endpointId: string, page: PageRequest, status?: DeliveryStatus): Promise<{ items: Delivery[]; total: number }> {
    const filter = { endpoint_id: endpointId, ...(status ? { status } : {}) };
    const [items, total] = await Promise.all([
      this.model.find(filter).sort({ created_at: -1, _id: -1 }).skip(skipFor(page)).limit(page.per_page).lean<Delivery[]>().exec(),
      this.model.countDocuments(filter).exec(),
    ]);
    return { items, total };
  }

  /** A finished (failed or succeeded) delivery starts a new round of attempts now. */
  async reschedule(endpointId: string, deliveryId: string, now: Date): Promise<boolean> {
    const result = await this.model
      .updateOne(
        { _id: deliveryId, endpoint_id: endpointId, status: { $in: ['failed', 'succeeded'] } },
        { $set: { status: 'pending', next_attempt_at: now, round_attempts: 0, lease_until: null, lease_token: null, updated_at: now } },
      )
      .exec();
    return result.modifiedCount === 1;
  }

  async removeForEndpoint(endpointId: string): Promise<void> {
    await this.model.deleteMany({ endpoint_id: endpointId }).exec();
  }

  async queueStats(): Promise<QueueStats> {
    const [pending, oldest] = await Promise.all([
      this.model.countDocuments({ status: 'pending' }).exec(),
      this.model.findOne({ status: 'pending' }, { created_at: 1 }).sort({ created_at: 1 }).lean<Pick<Delivery, 'created_at'>>().exec(),
    ]);
    return { pending, oldestPendingAt: oldest?.created_at ?? null };
  }
}

function pendingDocument(delivery: NewDelivery, now: Date): Delivery {
  return {
    _id: randomUUID(),
    ...delivery,
    status: 'pending',
    attempt_count: 0,
    round_attempts: 0,
    attempts: [],
    next_attempt_at: now,
    lease_until: null,
    lease_token: null,
    created_at: now,
    updated_at: now,
  };
}

function onlyDuplicates(error: unknown): boolean {
  const bulk = error as { code?: number; writeErrors?: Array<{ code?: number; err?: { code?: number } }> };
  if (bulk.writeErrors && bulk.writeErrors.length > 0) {
    return bulk.writeErrors.every((writeError) => (writeError.code ?? writeError.err?.code) === DUPLICATE_KEY);
  }
  return bulk.code === DUPLICATE_KEY;
}
