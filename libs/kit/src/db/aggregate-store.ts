import type { Model } from 'mongoose';
import type { EventEnvelope } from '@dfc/contracts';
import { ConflictError, NotFoundError } from '../errors.js';
import { outboxOnCreate, type OutboxFields, type OutboxModel, type OutboxRelay } from '../broker/outbox.js';
import { serialisedPerDocument } from './engine-gaps.js';

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

export interface AggregateStoreOptions {
  /** The 409 message when the document keeps changing under the decision. */
  conflictMessage?: string;
  /** The 404 message when the document does not exist. */
  notFoundMessage?: string;
  maxAttempts?: number;
}

const WITHOUT_OUTBOX = { outbox: 0, outbox_pending_since: 0 } as const;

/** The outbox is the relay's business, never the caller's. */
function withoutOutbox<D>(doc: D & OutboxFields): D {
  const { outbox: _outbox, outbox_pending_since: _since, ...rest } = doc;
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

  constructor(
    readonly model: Model<D>,
    private readonly outbox: OutboxRelay,
    private readonly options: AggregateStoreOptions = {},
  ) {
    this.maxAttempts = options.maxAttempts ?? 10;
    outbox.watch(this.outboxModel);
  }

  /** The document without its outbox, or null. */
  find(id: string): Promise<D | null> {
    return this.model.findById(id, WITHOUT_OUTBOX).lean<D>().exec();
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
    if (events.length > 0) void this.outbox.notify(this.outboxModel, doc._id);
    return withoutOutbox(created.toObject() as unknown as D & OutboxFields);
  }

  /**
   * Applies the change `decide` makes to the current document, atomically.
   * Returns the document after the change (or as it is, when `decide` returns null).
   */
  async change(id: string, decide: Decide<D>): Promise<D> {
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const outcome = await serialisedPerDocument(this.model.collection.name, id, () => this.attempt(id, decide));
      if (outcome === 'changed-meanwhile') continue;
      if (outcome.published) void this.outbox.notify(this.outboxModel, id);
      return outcome.doc;
    }
    throw new ConflictError(this.options.conflictMessage ?? 'The resource is being changed by someone else; try again.');
  }

  private async attempt(id: string, decide: Decide<D>): Promise<{ doc: D; published: boolean } | 'changed-meanwhile'> {
    const current = await this.get(id);
    const change = await decide(current);
    if (change === null) return { doc: current, published: false };
    const events = change.events ?? [];
    const set: Record<string, unknown> = { ...change.set };
    const update: Record<string, unknown> = { $inc: { version: 1 } };
    if (change.unset?.length) update['$unset'] = Object.fromEntries(change.unset.map((field) => [field, 1]));
    if (events.length > 0) {
      set['outbox_pending_since'] = new Date();
      update['$push'] = { outbox: { $each: events } };
    }
    if (Object.keys(set).length > 0) update['$set'] = set;
    const updated = await this.model
      .findOneAndUpdate({ _id: id, version: current.version }, update, { returnDocument: 'after' })
      .lean<D & OutboxFields>()
      .exec();
    return updated ? { doc: withoutOutbox(updated), published: events.length > 0 } : 'changed-meanwhile';
  }

  private get outboxModel(): OutboxModel {
    return this.model as unknown as OutboxModel;
  }
}
