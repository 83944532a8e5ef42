import type { Model, QueryFilter } from 'mongoose';
import type { EventEnvelope, FlightRequestStatus } from '@dfc/contracts';
import { outboxOnCreate } from '@dfc/kit/broker';
import { changeId, type ChangeModel, type StoredChange } from './change-model.js';
import type { FlightRequestModel, ReviewItemPointer, StoredFlightRequest } from './flight-request-model.js';
import { asOutboxModel, type OutboxModel } from './outbox-model.js';

export type FlightRequestDoc = StoredFlightRequest;
type ChangeDoc = StoredChange;

/** Who may see which requests in a list (the use case decides, the store turns it into a query). */
export interface ListScope {
  operatorUuid?: string;
  reviewerAuthority?: string;
}

export interface ListCriteria extends ListScope {
  statuses: FlightRequestStatus[] | null;
  from: Date | null;
  until: Date | null;
}

export interface ReviewQueueRow {
  doc: FlightRequestDoc;
  itemId: string;
}

const DUPLICATE_KEY = 11000;

function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: number }).code === DUPLICATE_KEY;
}

/** insertMany's error when every failure was a duplicate (a roll-forward re-inserting what is there). */
function isBulkOfDuplicates(error: unknown): boolean {
  const writeErrors = (error as { writeErrors?: Array<{ code?: number; err?: { code?: number } }> }).writeErrors;
  return Array.isArray(writeErrors) && writeErrors.every((entry) => (entry.code ?? entry.err?.code) === DUPLICATE_KEY);
}

/**
 * Flight requests and their changes. Every write goes through a change record
 * (see change-model.ts): inserting it decides the race, applying it updates
 * the request, and its outbox carries the events.
 */
export class FlightRequestStore {
  /** The relay drains the change records' outboxes. */
  readonly outboxModel: OutboxModel;

  constructor(
    readonly model: FlightRequestModel,
    readonly changes: ChangeModel,
    private readonly pointers: Model<ReviewItemPointer>,
  ) {
    this.outboxModel = asOutboxModel(changes);
  }

  /**
   * A new request with its events; null when a request with this uuid exists
   * already (an idempotent retry that lost the race). Returns the id of the
   * change record whose outbox holds the events.
   */
  async insert(request: StoredFlightRequest, events: EventEnvelope[]): Promise<{ doc: FlightRequestDoc; changeId: unknown } | null> {
    let change: ChangeDoc;
    try {
      change = await this.recordChange(request.uuid, 0, request as unknown as Record<string, unknown>, events);
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // The winner may not have put its document in place yet: do it for them, so the caller can read it.
      await this.rollForward(request.uuid, 0);
      return null;
    }
    await this.apply(change);
    const doc = await this.findByUuid(request.uuid);
    if (!doc) throw new Error(`flight request ${request.uuid} missing right after its insert`);
    return { doc, changeId: change._id };
  }

  /**
   * Applies `set` if nobody changed the request since it was read (same
   * version); otherwise returns null after making sure the change that won is
   * applied, and the caller reads again and decides anew.
   */
  async updateIfUnchanged(current: FlightRequestDoc, set: Partial<StoredFlightRequest>, events: EventEnvelope[]): Promise<unknown | null> {
    let change: ChangeDoc;
    try {
      change = await this.recordChange(current.uuid, current.version, set as Record<string, unknown>, events);
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      await this.rollForward(current.uuid, current.version);
      return null;
    }
    await this.apply(change);
    return change._id;
  }

  /** Crash repair: changes recorded but never applied (their writer died in between) are applied now. */
  async applyStaleChanges(olderThan: Date): Promise<number> {
    const stale = await this.changes.find({ applied: false, created_at: { $lt: olderThan } }).sort({ created_at: 1 }).limit(500).lean<ChangeDoc[]>().exec();
    for (const change of stale) await this.apply(change);
    return stale.length;
  }

  /** Applied and published changes older than `before` have done their work (the history is in the request). */
  async forgetDoneChanges(before: Date): Promise<void> {
    await this.changes.deleteMany({ applied: true, outbox: { $size: 0 }, created_at: { $lt: before } });
  }

  private async recordChange(uuid: string, fromVersion: number, set: Record<string, unknown>, events: EventEnvelope[]): Promise<ChangeDoc> {
    const created = await this.changes.create({
      _id: changeId(uuid, fromVersion),
      uuid,
      from_version: fromVersion,
      set,
      applied: false,
      created_at: new Date(),
      ...outboxOnCreate(events),
    });
    return created.toObject() as ChangeDoc;
  }

  private async rollForward(uuid: string, fromVersion: number): Promise<void> {
    const change = await this.changes.findById(changeId(uuid, fromVersion)).lean<ChangeDoc>().exec();
    if (change) await this.apply(change);
  }

  /**
   * Only the change that won its `<uuid>:<from_version>` is ever applied from
   * that version, so writers applying it at once (its author and a
   * roll-forward) write the same fields. The version is checked on a read by
   * `_id` rather than in the update's filter: FerretDB serves only a bare `_id`
   * filter without reading the whole collection, and its updates are not
   * atomic anyway. Should a stalled applier still rewind a request, the next
   * change of it collides on the version it rewound to and rolls forward again.
   */
  private async apply(change: ChangeDoc): Promise<void> {
    if (change.from_version === 0) {
      if (change.set) await this.createFromChange(change.set as unknown as StoredFlightRequest);
    } else if (change.set) {
      const current = await this.model.findById(change.uuid, { version: 1 }).lean<{ version: number }>().exec();
      if (current?.version === change.from_version) {
        await this.model.updateOne({ _id: change.uuid }, { $set: { ...change.set, version: change.from_version + 1 } });
      }
    }
    if (!change.applied) {
      // The submission's full document is not kept twice once it is in place.
      const done = change.from_version === 0 ? { $set: { applied: true }, $unset: { set: 1 } } : { $set: { applied: true } };
      await this.changes.updateOne({ _id: change._id }, done);
    }
  }

  private async createFromChange(request: StoredFlightRequest): Promise<void> {
    const ignoreDuplicate = (error: unknown) => {
      if (!isDuplicateKey(error) && !isBulkOfDuplicates(error)) throw error;
    };
    await this.model.create(request).catch(ignoreDuplicate);
    const pointers = request.review.items.map((item) => ({ _id: item.id, uuid: request.uuid }));
    if (pointers.length > 0) await this.pointers.insertMany(pointers, { ordered: false }).catch(ignoreDuplicate);
  }

  findByUuid(uuid: string): Promise<FlightRequestDoc | null> {
    return this.model.findById(uuid).lean<FlightRequestDoc>().exec();
  }

  async findByItemId(itemId: string): Promise<FlightRequestDoc | null> {
    const pointer = await this.pointers.findById(itemId).lean<ReviewItemPointer>().exec();
    return pointer ? this.findByUuid(pointer.uuid) : null;
  }

  /**
   * The write of every state change: it applies only if nobody changed the
   * request since it was read (same version), so of two racing changes exactly
   * one lands; the loser re-reads and decides again.
   */
  async list(criteria: ListCriteria, skip: number, limit: number): Promise<{ items: FlightRequestDoc[]; total: number }> {
    const filter = listFilter(criteria);
    const [items, total] = await Promise.all([
      this.model
        .find(filter, { flight_area_json: 0, polygons_json: 0 })
        .sort({ created_at: -1, uuid: -1 })
        .skip(skip)
        .limit(limit)
        .lean<FlightRequestDoc[]>()
        .exec(),
      this.model.countDocuments(filter).exec(),
    ]);
    return { items, total };
  }

  /** Approved flights of other operators whose window and bounding box overlap: deconfliction candidates. */
  approvedOverlapping(
    operatorUuid: string,
    start: Date,
    end: Date,
    bbox: [number, number, number, number],
  ): Promise<FlightRequestDoc[]> {
    const [west, south, east, north] = bbox;
    return this.model
      .find(
        {
          status: 'Approved',
          operator_uuid: { $ne: operatorUuid },
          start_time: { $lt: end },
          end_time: { $gt: start },
          bbox_west: { $lte: east },
          bbox_east: { $gte: west },
          bbox_south: { $lte: north },
          bbox_north: { $gte: south },
        },
        { uuid: 1, operator_uuid: 1, start_time: 1, end_time: 1, max_altitude: 1, polygons_json: 1 },
      )
      .lean<FlightRequestDoc[]>()
      .exec();
  }

  /** Pending requests whose start has passed, oldest first. */
  overdue(now: Date, limit: number): Promise<FlightRequestDoc[]> {
    return this.model
      .find({ status: 'Pending', start_time: { $lte: now } }, { flight_area_json: 0, polygons_json: 0 })
      .sort({ start_time: 1 })
      .limit(limit)
      .lean<FlightRequestDoc[]>()
      .exec();
  }

  /**
   * The review queue is a list of items, not of requests (one request can hold
   * several items of one authority). FerretDB's aggregation cannot unwind a
   * nested array, so the queue's requests are read with only their items
   * (pending items exist on Pending requests alone, a bounded backlog),
   * flattened in memory, and the page's requests then read in full.
   */
  async reviewQueue(authority: string | null, skip: number, limit: number): Promise<{ rows: ReviewQueueRow[]; total: number }> {
    const match: QueryFilter<StoredFlightRequest> = authority ? { pending_authorities: authority } : { status: 'Pending' };
    const candidates = await this.model
      .find(match, { uuid: 1, created_at: 1, review: 1 })
      .sort({ created_at: 1, uuid: 1 })
      .lean<Array<Pick<StoredFlightRequest, 'uuid' | 'review'>>>()
      .exec();
    const queue = candidates.flatMap((request) =>
      request.review.items
        .filter((item) => item.status === 'pending' && (authority === null || item.authority === authority))
        .map((item) => ({ uuid: request.uuid, itemId: item.id })),
    );
    const page = queue.slice(skip, skip + limit);
    const docs = await this.model
      .find({ _id: { $in: [...new Set(page.map((row) => row.uuid))] } }, { flight_area_json: 0, polygons_json: 0 })
      .lean<FlightRequestDoc[]>()
      .exec();
    const byUuid = new Map(docs.map((doc) => [doc.uuid, doc]));
    const rows = page.flatMap((row) => {
      const doc = byUuid.get(row.uuid);
      return doc ? [{ doc, itemId: row.itemId }] : [];
    });
    return { rows, total: queue.length };
  }
}

function listFilter(criteria: ListCriteria): QueryFilter<StoredFlightRequest> {
  const filter: QueryFilter<StoredFlightRequest> = {};
  if (criteria.operatorUuid) filter.operator_uuid = criteria.operatorUuid;
  if (criteria.reviewerAuthority) filter.review_authorities = criteria.reviewerAuthority;
  if (criteria.statuses) filter.status = { $in: criteria.statuses };
  if (criteria.until) filter.start_time = { $lt: criteria.until };
  if (criteria.from) filter.end_time = { $gt: criteria.from };
  return filter;
}
