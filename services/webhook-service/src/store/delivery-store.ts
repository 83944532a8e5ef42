import { randomUUID } from 'node:crypto';
import { type PageRequest, skipFor } from '@dfc/kit/pagination';
import { AggregateStore, WITHOUT_OUTBOX, type Decide, type OutboxRelay } from '@dfc/kit/outbox';
import { driverCollection, findWhereIn, GroupedWrites, isDuplicateKey } from '@dfc/kit/db';
import type { DeliveryStatus, EventEnvelope } from '@dfc/contracts';
import type { AttemptModel, StoredAttempt } from './attempt-model.js';
import type { Delivery, DeliveryModel } from './delivery-model.js';

export type NewDelivery = Omit<Delivery, 'version'>;

/** An attempt as the sender reports it; ids are added when it is stored. */
export type AttemptFields = Omit<StoredAttempt, '_id' | 'delivery_id' | 'endpoint_id'>;

export type DeliveryWithAttempts = Delivery & { attempts: StoredAttempt[] };

/**
 * The delivery log. A delivery is written through the aggregate's write
 * path and changed by conditional writes, the messages a change causes in
 * its outbox (so a crash between the write and the publish loses nothing:
 * the relay's sweep publishes them). The fan-out's deliveries are the
 * exception: their first messages are published by the fan-out itself before
 * the domain event they come from is acked (see `fanOutEvent`). Attempts are appended.
 */
export class DeliveryStore {
  private readonly aggregate: AggregateStore<Delivery>;
  private readonly attemptLog: GroupedWrites<StoredAttempt>;
  /** Each caller's new deliveries; the ids of those the batch inserted. */
  private readonly creations: GroupedWrites<NewDelivery[], Set<string>>;

  constructor(
    private readonly model: DeliveryModel,
    private readonly attempts: AttemptModel,
    relay: OutboxRelay,
  ) {
    this.aggregate = new AggregateStore(model, relay, { notFoundMessage: 'Not found.' });
    this.creations = new GroupedWrites(async (batches) => {
      const inserted = await this.aggregate.insertEach(batches.flat().map((delivery) => ({ doc: delivery, events: [] })));
      return new Set(inserted.map((delivery) => delivery._id));
    });
    this.attemptLog = new GroupedWrites(async (records) => {
      await driverCollection(attempts).insertMany(records, { ordered: false });
    });
  }

  /** Stores a new delivery with the message that starts it; null when one exists for this (event, endpoint) already. */
  async create(delivery: NewDelivery, message: EventEnvelope): Promise<Delivery | null> {
    try {
      return await this.aggregate.insert(delivery, [message]);
    } catch (error) {
      if (isDuplicateKey(error)) return null;
      throw error;
    }
  }

  /**
   * Stores new deliveries without messages (the caller sends them); returns
   * those that did not exist yet. The deliveries of events fanned out at the
   * same moment share one insert: a unique index refuses a duplicate by
   * itself, whichever caller's it is.
   */
  async createEach(deliveries: NewDelivery[]): Promise<Delivery[]> {
    if (deliveries.length === 0) return [];
    const inserted = await this.creations.add(deliveries);
    return deliveries.filter((delivery) => inserted.has(delivery._id)).map((delivery) => ({ ...delivery, version: 0 }));
  }

  /** The event's deliveries still pending that were never attempted (read by the unique (event, endpoint) index: one per subscriber). */
  async unattempted(eventId: string): Promise<Delivery[]> {
    const deliveries = await this.model.find({ event_id: eventId }, WITHOUT_OUTBOX).lean<Delivery[]>().exec();
    return deliveries.filter((delivery) => delivery.status === 'pending' && delivery.attempt_count === 0);
  }

  /** read → decide → one conditional write; `read`, a copy just read, spares the first read. */
  change(id: string, decide: Decide<Delivery>, read?: Delivery): Promise<Delivery> {
    return this.aggregate.change(id, decide, read);
  }

  /** A final transition (succeeded, failed) decided on the copy just read; those made at the same time share one write (AggregateStore.settle). */
  settle(delivery: Delivery, decide: Decide<Delivery>): Promise<void> {
    return this.aggregate.settle(delivery, decide);
  }

  find(id: string): Promise<Delivery | null> {
    return this.aggregate.find(id);
  }

  /** Appends one attempt to the log; attempts recorded at the same time share one insert. */
  appendAttempt(delivery: Delivery, attempt: AttemptFields): Promise<void> {
    return this.attemptLog.add({ _id: randomUUID(), delivery_id: delivery._id, endpoint_id: delivery.endpoint_id, ...attempt });
  }

  /** The deliveries with their attempts, oldest attempt first. */
  async withAttempts(deliveries: Delivery[]): Promise<DeliveryWithAttempts[]> {
    if (deliveries.length === 0) return [];
    const attempts = await findWhereIn(
      this.attempts,
      'delivery_id',
      deliveries.map((delivery) => delivery._id),
    );
    attempts.sort(oldestFirst);
    const byDelivery = new Map<string, StoredAttempt[]>();
    for (const attempt of attempts) byDelivery.set(attempt.delivery_id, [...(byDelivery.get(attempt.delivery_id) ?? []), attempt]);
    return deliveries.map((delivery) => ({ ...delivery, attempts: byDelivery.get(delivery._id) ?? [] }));
  }

  async findForEndpoint(endpointId: string, deliveryId: string): Promise<Delivery | null> {
    const delivery = await this.aggregate.find(deliveryId);
    return delivery?.endpoint_id === endpointId ? delivery : null;
  }

  async list(endpointId: string, page: PageRequest, status?: DeliveryStatus): Promise<{ items: Delivery[]; total: number }> {
    const filter = { endpoint_id: endpointId, ...(status ? { status } : {}) };
    const [items, total] = await Promise.all([
      this.model.find(filter, WITHOUT_OUTBOX).sort({ created_at: -1, _id: -1 }).skip(skipFor(page)).limit(page.per_page).lean<Delivery[]>().exec(),
      this.model.countDocuments(filter).exec(),
    ]);
    return { items, total };
  }

  async removeForEndpoint(endpointId: string): Promise<void> {
    await this.model.deleteMany({ endpoint_id: endpointId }).exec();
    await this.attempts.deleteMany({ endpoint_id: endpointId }).exec();
  }

  /** Pending deliveries that were due before `cutoff`, oldest first: their message should long have been consumed. */
  overdue(cutoff: Date, limit: number): Promise<Array<Pick<Delivery, '_id'>>> {
    return this.model
      .find({ status: 'pending', next_attempt_at: { $lt: cutoff } }, { _id: 1 })
      .sort({ next_attempt_at: 1, _id: 1 })
      .limit(limit)
      .lean<Array<Pick<Delivery, '_id'>>>()
      .exec();
  }

  /**
   * Pending deliveries due by `now`, counted up to `cap`: the attempts waiting for a replica, wherever
   * their message is (ready on the broker, in a replica's prefetch or memory, under way). One count of
   * the index's keys; the cap bounds what a scrape costs when a backlog is large.
   */
  countDue(now: Date, cap: number): Promise<number> {
    return this.model.countDocuments({ status: 'pending', next_attempt_at: { $lte: now } }, { limit: cap }).exec();
  }

  /** When the longest-waiting due delivery became due (null when none is due). */
  async oldestDueAt(now: Date): Promise<Date | null> {
    const oldest = await this.model
      .findOne({ status: 'pending', next_attempt_at: { $lte: now } }, { next_attempt_at: 1 })
      .sort({ next_attempt_at: 1, _id: 1 })
      .lean<Pick<Delivery, 'next_attempt_at'>>()
      .exec();
    return oldest?.next_attempt_at ?? null;
  }
}

/** Attempts in the order they were made (ties, within one millisecond, by id as the index orders them). */
function oldestFirst(a: StoredAttempt, b: StoredAttempt): number {
  return a.at.getTime() - b.at.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
}
