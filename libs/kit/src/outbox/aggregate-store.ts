import type { Model, mongo } from 'mongoose';
import type { EventEnvelope } from '@dfc/contracts';
import { ConflictError, NotFoundError } from '../errors.js';
import { driverCollection } from '../db/driver-collection.js';
import { acrossProcesses, refusedAsDuplicates, serialisedPerDocument, type ListCopies } from '../db/engine-gaps.js';
import { GroupedWrites } from '../db/grouped-writes.js';
import { outboxOnCreate, withOutbox, WITHOUT_OUTBOX, type OutboxFields } from './fields.js';
import type { OutboxModel, OutboxRelay, WrittenOutbox } from './relay.js';

/** A document that is changed only through its store's write path. */
export interface Aggregate {
  _id: string;
  /** Optimistic concurrency: every write is conditional on the version it was decided from. */
  version: number;
}

/** What a decision changes: fields to set or remove, and the events the change causes. */
export interface Change<D> {
  set?: Partial<Omit<D, '_id' | 'version'>>;
  unset?: Array<Exclude<keyof D, '_id' | 'version'>>;
  events?: EventEnvelope[];
}

/** Decides a change from the current state; null leaves the document as it is. Throws to refuse. */
export type Decide<D> = (current: D) => Change<D> | null | Promise<Change<D> | null>;

export interface AggregateStoreOptions<D extends Aggregate = Aggregate> {
  /** The 409 message when the document keeps changing under the decision. */
  conflictMessage?: string;
  /** The 404 message when the document does not exist. */
  notFoundMessage?: string;
  maxAttempts?: number;
  /**
   * Every conditional write is atomic across processes on every engine, not
   * only on MongoDB (engine-gaps.ts): for aggregates whose rules must hold
   * system-wide, at the cost of two more commands per write on the local engine.
   */
  acrossProcesses?: boolean;
  /** The copies its lists read on the local engine (engine-gaps.ts), kept after every write. */
  listCopies?: ListCopies<D>;
}

/** The outbox is the relay's business, never the caller's. */
function withoutOutbox<D>(doc: D & OutboxFields): D {
  const { outbox: _outbox, outbox_pending_since: _since, outbox_pending_since_hour: _hour, ...rest } = doc;
  return rest as unknown as D;
}

/**
 * The one write path of an aggregate: read → decide (pure domain) → one
 * conditional write `findOneAndUpdate({ _id, version }, { $set, $inc: { version: 1 },
 * $push: { outbox: … } })`, retried from a fresh read when someone else
 * changed the document in between. The events ride in the document's own
 * outbox, so the state change and its events are one atomic write; the relay
 * publishes them as soon as the write returns and again after a crash.
 */
export class AggregateStore<D extends Aggregate> {
  private readonly maxAttempts: number;
  /** The conditional updates of settle() made at the same time, in one bulk; whether every one matched. */
  private readonly settlements = new GroupedWrites<mongo.AnyBulkWriteOperation<Aggregate>, boolean>(async (operations) => {
    const result = await this.collection.bulkWrite(operations, { ordered: false });
    return result.matchedCount === operations.length;
  });

  constructor(
    readonly model: Model<D>,
    private readonly outbox: OutboxRelay,
    private readonly options: AggregateStoreOptions<D> = {},
  ) {
    this.maxAttempts = options.maxAttempts ?? 10;
    outbox.watch(this.outboxModel);
  }

  /** The document without its outbox, or null. */
  find(id: string): Promise<D | null> {
    return this.collection.findOne({ _id: id }, { projection: WITHOUT_OUTBOX }) as Promise<D | null>;
  }

  async get(id: string): Promise<D> {
    const doc = await this.find(id);
    if (!doc) throw new NotFoundError(this.options.notFoundMessage);
    return doc;
  }

  /** Inserts a new document (version 0) with the events of its creation. A unique index may refuse it: see `isDuplicateKey`. */
  async insert(doc: Omit<D, 'version'>, events: EventEnvelope[] = []): Promise<D> {
    // mongoose's create() typing cannot follow a generic document type; the schema casts and validates it.
    const created = await this.model.create({ ...doc, version: 0, ...outboxOnCreate(events) } as unknown as D);
    if (events.length > 0) void this.outbox.notify(this.outboxModel, doc._id, { version: 0, outbox: events });
    const stored = withoutOutbox(created.toObject() as unknown as D & OutboxFields);
    await this.options.listCopies?.written(stored);
    return stored;
  }

  /**
   * Inserts new documents, each with the events of its creation, in one
   * command. Those a unique index refuses are left out (a redelivered message
   * creating what it created before); the ones inserted are returned.
   */
  async insertEach(entries: Array<{ doc: Omit<D, 'version'>; events: EventEnvelope[] }>): Promise<D[]> {
    if (entries.length === 0) return [];
    // The schema casts each document (a value of the wrong type throws before anything is written), without
    // building a mongoose document of it; the driver then stores them as they are. The outbox is added after
    // the cast: its entries are events of no schema type, which the cast would only wrap in a MongooseArray
    // proxy for the driver to serialise through its traps.
    const docs = entries.map(({ doc, events }) => ({ ...this.model.castObject({ ...doc, version: 0 }), ...outboxOnCreate(events) }));
    let refused = new Set<number>();
    try {
      await this.collection.insertMany(docs, { ordered: false });
    } catch (error) {
      refused = refusedAsDuplicates(error);
    }
    const inserted = entries.filter((_, index) => !refused.has(index));
    for (const { doc, events } of inserted) {
      if (events.length > 0) void this.outbox.notify(this.outboxModel, doc._id, { version: 0, outbox: events });
    }
    const stored = inserted.map(({ doc }) => ({ ...doc, version: 0 }) as D);
    const copies = this.options.listCopies;
    if (copies) await Promise.all(stored.map((doc) => copies.written(doc)));
    return stored;
  }

  /**
   * Applies the change `decide` makes to the current document, atomically.
   * Returns the document after the change (or as it is, when `decide` returns null).
   * A caller that has just read the document passes it as `read`: the first
   * decision is made on it without reading again (a stale copy only costs a retry).
   */
  async change(id: string, decide: Decide<D>, read?: D): Promise<D> {
    let known = read;
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const outcome = await serialisedPerDocument(this.model.collection.name, id, () => this.attempt(id, decide, known));
      known = undefined;
      if (outcome === 'changed-meanwhile') continue;
      if (outcome.written) void this.outbox.notify(this.outboxModel, id, outcome.written);
      if (outcome.changed) await this.options.listCopies?.written(outcome.doc);
      return outcome.doc;
    }
    throw new ConflictError(this.options.conflictMessage ?? 'The resource is being changed by someone else; try again.');
  }

  /**
   * change() for a final transition decided on a copy the caller has just
   * read, causing no events (a delivery that succeeded): the transitions made
   * at the same time share one command, an unordered bulk of updates each
   * conditional on its document's version, so a busy store sends a fraction
   * of the round trips. When a copy in the batch was stale the bulk matches
   * fewer documents than it carries, and each of the batch is decided again
   * through change(), on its current document. So `decide` must change
   * nothing in a document it has already changed (a final state: a delivery
   * that succeeded is no longer pending), and the caller learns nothing but
   * that its transition is in place or was refused by `decide` on a newer copy.
   */
  async settle(read: D, decide: Decide<D>): Promise<void> {
    const change = await decide(read);
    if (change === null) return;
    // Events need the outbox write and the relay's notice that change() makes.
    if (change.events?.length) {
      await this.change(read._id, decide, read);
      return;
    }
    const allMatched = await serialisedPerDocument(this.model.collection.name, read._id, () =>
      this.settlements.add({ updateOne: { filter: { _id: read._id, version: read.version }, update: updateFor(change) } }),
    );
    if (!allMatched) await this.change(read._id, decide);
    else if (this.options.listCopies) {
      const after: Record<string, unknown> = { ...(read as unknown as Record<string, unknown>), ...change.set, version: read.version + 1 };
      for (const field of change.unset ?? []) delete after[field as string];
      await this.options.listCopies.written(after as unknown as D);
    }
  }

  private async attempt(
    id: string,
    decide: Decide<D>,
    known: D | undefined,
  ): Promise<{ doc: D; changed: boolean; written?: WrittenOutbox } | 'changed-meanwhile'> {
    const current = known ?? (await this.get(id));
    const change = await decide(current);
    if (change === null) return { doc: current, changed: false };
    const events = change.events ?? [];
    const plain = updateFor(change);
    const update: mongo.UpdateFilter<Aggregate> = events.length > 0 ? withOutbox(plain, events) : plain;
    const updated = (await this.conditionally(id, current.version, () =>
      this.collection.findOneAndUpdate({ _id: id, version: current.version }, update, { returnDocument: 'after' }),
    )) as (D & OutboxFields) | null;
    if (!updated) return 'changed-meanwhile';
    return {
      doc: withoutOutbox(updated),
      changed: true,
      ...(events.length > 0 ? { written: { version: updated.version, outbox: updated.outbox } } : {}),
    };
  }

  /** Deletes the document if it is still at `version` (and matches `where`); whether it did. */
  async remove(id: string, version: number, where: Record<string, unknown> = {}): Promise<boolean> {
    const removed = await serialisedPerDocument(this.model.collection.name, id, () =>
      this.conditionally(id, version, async () =>
        (await this.collection.deleteOne({ ...where, _id: id, version })).deletedCount === 1 ? true : null,
      ),
    );
    if (removed === true) await this.options.listCopies?.removed([id]);
    return removed === true;
  }

  private conditionally<T>(id: string, version: number, write: () => Promise<T | null>): Promise<T | null> {
    if (!this.options.acrossProcesses) return write();
    return acrossProcesses(this.model.db, this.model.collection.name, id, version, write);
  }

  /**
   * Reads and conditional writes go to the driver: the decisions are typed as
   * the document already. Seen as a collection of aggregates (id and version):
   * the driver's filter types cannot follow a generic document type.
   */
  private get collection(): mongo.Collection<Aggregate> {
    return driverCollection(this.model as unknown as Model<Aggregate>);
  }

  private get outboxModel(): OutboxModel {
    return this.model as unknown as OutboxModel;
  }
}

/** The update a change makes, its events aside: the fields it sets and removes, and the next version. */
function updateFor<D>(change: Change<D>): { $inc: { version: number }; $set?: Record<string, unknown>; $unset?: Record<string, 1> } {
  const set = (change.set ?? {}) as Record<string, unknown>;
  return {
    $inc: { version: 1 },
    ...(Object.keys(set).length > 0 ? { $set: set } : {}),
    ...(change.unset?.length ? { $unset: Object.fromEntries(change.unset.map((field) => [field, 1 as const])) } : {}),
  };
}
