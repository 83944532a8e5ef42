import { randomUUID } from 'node:crypto';
import type { PageRequest } from '@dfc/kit/http';
import { skipFor } from '@dfc/kit/http';
import type { DeliveryStatus } from '@dfc/contracts';
import type { AttemptModel, StoredAttempt } from './attempt-model.js';
import type { Delivery, DeliveryModel } from './delivery-model.js';
import { InsertBatcher } from './insert-batcher.js';

const DUPLICATE_KEY = 11000;

export type NewDelivery = Pick<Delivery, 'endpoint_id' | 'operator_uuid' | 'event_id' | 'event' | 'body'>;

/** A delivery this dispatcher holds the lease of. */
export type ClaimedDelivery = Delivery & { lease_token: string };

/** An attempt as the dispatcher reports it; ids are added when it is stored. */
export type AttemptFields = Omit<StoredAttempt, '_id' | 'delivery_id' | 'endpoint_id'>;

export type DeliveryWithAttempts = Delivery & { attempts: StoredAttempt[] };

export interface AttemptRecord {
  attempt: AttemptFields;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
}

export interface QueueStats {
  pending: number;
  oldestPendingAt: Date | null;
}

export class DeliveryStore {
  private readonly inserts: InsertBatcher;

  constructor(
    private readonly model: DeliveryModel,
    private readonly attempts: AttemptModel,
  ) {
    this.inserts = new InsertBatcher((documents) => this.insertNew(documents));
  }

  /**
   * Stores one pending delivery per (event, endpoint) and returns those that
   * are new. The unique index makes this idempotent: when the broker hands
   * the same message over again, the existing deliveries are kept and the
   * duplicates ignored. With `leaseMs`, the new deliveries are created
   * already leased to the caller, who sends them at once.
   */
  async createPending(deliveries: NewDelivery[], now: Date, leaseMs?: number): Promise<ClaimedDelivery[]> {
    if (deliveries.length === 0) return [];
    const lease = leaseMs === undefined ? undefined : { lease_until: new Date(now.getTime() + leaseMs), lease_token: randomUUID() };
    const documents = deliveries.map((delivery) => ({ ...pendingDocument(delivery, now), ...lease }));
    const created = await this.inserts.insert(documents);
    return lease ? documents.filter((document) => created.has(document._id)).map((document) => ({ ...document, ...lease })) : [];
  }

  /** Inserts, ignoring duplicates of (event, endpoint); returns the ids actually stored by this write. */
  private async insertNew(documents: Delivery[]): Promise<Set<string>> {
    const ids = documents.map((document) => document._id);
    try {
      await this.model.insertMany(documents, { ordered: false });
      return new Set(ids);
    } catch (error) {
      if (!onlyDuplicates(error)) throw error;
      const stored = await this.model.find({ _id: { $in: ids } }, { _id: 1 }).lean<Array<{ _id: string }>>().exec();
      return new Set(stored.map((document) => document._id));
    }
  }

  /** Gives up leases this caller holds without having attempted the deliveries. */
  async releaseLeases(deliveries: ClaimedDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.model
      .updateMany(
        { _id: { $in: deliveries.map((delivery) => delivery._id) }, lease_token: { $in: deliveries.map((delivery) => delivery.lease_token) } },
        { $set: { lease_until: null, lease_token: null } },
      )
      .exec();
  }

  /** Extends a lease this caller still holds. */
  async renewLease(delivery: ClaimedDelivery, now: Date, leaseMs: number): Promise<boolean> {
    const lease_until = new Date(now.getTime() + leaseMs);
    const result = await this.model.updateOne({ _id: delivery._id, lease_token: delivery.lease_token }, { $set: { lease_until } }).exec();
    if (result.modifiedCount === 1) delivery.lease_until = lease_until;
    return result.modifiedCount === 1;
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

  /** Saves an attempt and what comes next; only the lease holder moves the delivery on. */
  async recordAttempt(delivery: ClaimedDelivery, record: AttemptRecord, now: Date): Promise<boolean> {
    await this.attempts.create(attemptDocument(delivery, record.attempt));
    const result = await this.model
      .updateOne(
        { _id: delivery._id, lease_token: delivery.lease_token },
        {
          $inc: { attempt_count: 1, round_attempts: 1 },
          $set: { status: record.status, next_attempt_at: record.nextAttemptAt, lease_until: null, lease_token: null, updated_at: now },
        },
      )
      .exec();
    return result.modifiedCount === 1;
  }

  /**
   * Many successful attempts in two writes. The same update suits every one
   * of them; the lease tokens keep a delivery someone else has claimed since
   * (its lease expired) out of it.
   */
  async recordSuccesses(batch: Array<{ delivery: ClaimedDelivery; attempt: AttemptFields }>, now: Date): Promise<void> {
    if (batch.length === 0) return;
    await this.attempts.insertMany(batch.map(({ delivery, attempt }) => attemptDocument(delivery, attempt)), { ordered: false });
    await this.model
      .updateMany(
        { _id: { $in: batch.map(({ delivery }) => delivery._id) }, lease_token: { $in: batch.map(({ delivery }) => delivery.lease_token) } },
        {
          $inc: { attempt_count: 1, round_attempts: 1 },
          $set: { status: 'succeeded', next_attempt_at: null, lease_until: null, lease_token: null, updated_at: now },
        },
      )
      .exec();
  }

  /** The deliveries with their attempts, oldest attempt first. */
  async withAttempts(deliveries: Delivery[]): Promise<DeliveryWithAttempts[]> {
    if (deliveries.length === 0) return [];
    const attempts = await this.attempts
      .find({ delivery_id: { $in: deliveries.map((delivery) => delivery._id) } })
      .sort({ at: 1, _id: 1 })
      .lean<StoredAttempt[]>()
      .exec();
    const byDelivery = new Map<string, StoredAttempt[]>();
    for (const attempt of attempts) byDelivery.set(attempt.delivery_id, [...(byDelivery.get(attempt.delivery_id) ?? []), attempt]);
    return deliveries.map((delivery) => ({ ...delivery, attempts: byDelivery.get(delivery._id) ?? [] }));
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
    await this.attempts.deleteMany({ endpoint_id: endpointId }).exec();
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
    next_attempt_at: now,
    lease_until: null,
    lease_token: null,
    created_at: now,
    updated_at: now,
  };
}

function attemptDocument(delivery: Delivery, attempt: AttemptFields): StoredAttempt {
  return { _id: randomUUID(), delivery_id: delivery._id, endpoint_id: delivery.endpoint_id, ...attempt };
}

function onlyDuplicates(error: unknown): boolean {
  const bulk = error as { code?: number; writeErrors?: Array<{ code?: number; err?: { code?: number } }> };
  if (bulk.writeErrors && bulk.writeErrors.length > 0) {
    return bulk.writeErrors.every((writeError) => (writeError.code ?? writeError.err?.code) === DUPLICATE_KEY);
  }
  return bulk.code === DUPLICATE_KEY;
}
