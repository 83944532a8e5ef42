import type { QueryFilter, UpdateQuery } from 'mongoose';
import type { EventEnvelope, FlightRequestStatus } from '@dfc/contracts';
import { outboxOnCreate, withOutbox } from '@dfc/kit';
import type { FlightRequestModel, StoredFlightRequest } from './flight-request-model.js';
import { asOutboxModel, type OutboxModel } from './outbox-model.js';

export type FlightRequestDoc = StoredFlightRequest & { _id: unknown };

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

export class FlightRequestStore {
  readonly outboxModel: OutboxModel;

  constructor(readonly model: FlightRequestModel) {
    this.outboxModel = asOutboxModel(model);
  }

  /** Inserts a new request with its events; false when the uuid exists already (idempotent retry). */
  async insert(request: StoredFlightRequest, events: EventEnvelope[]): Promise<FlightRequestDoc | null> {
    try {
      const created = await this.model.create({ ...request, ...outboxOnCreate(events) });
      return created.toObject() as FlightRequestDoc;
    } catch (error) {
      if ((error as { code?: number }).code === DUPLICATE_KEY) return null;
      throw error;
    }
  }

  findByUuid(uuid: string): Promise<FlightRequestDoc | null> {
    return this.model.findOne({ uuid }).lean<FlightRequestDoc>().exec();
  }

  findByItemId(itemId: string): Promise<FlightRequestDoc | null> {
    return this.model.findOne({ 'review.items.id': itemId }).lean<FlightRequestDoc>().exec();
  }

  /**
   * The write of every state change: it applies only if nobody changed the
   * request since it was read (same version), so of two racing changes exactly
   * one lands; the loser re-reads and decides again.
   */
  async updateIfUnchanged(
    current: FlightRequestDoc,
    set: Partial<StoredFlightRequest>,
    events: EventEnvelope[],
  ): Promise<boolean> {
    const update: UpdateQuery<StoredFlightRequest> = withOutbox({ $set: set as Record<string, unknown> }, events);
    const result = await this.model.updateOne(
      { uuid: current.uuid, version: current.version },
      { ...update, $inc: { version: 1 } },
    );
    return result.modifiedCount === 1;
  }

  async list(criteria: ListCriteria, skip: number, limit: number): Promise<{ items: FlightRequestDoc[]; total: number }> {
    const filter = listFilter(criteria);
    const [items, total] = await Promise.all([
      this.model
        .find(filter, { flight_area_json: 0, polygons_json: 0, outbox: 0 })
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
   * several items for one authority), so it unwinds the items; the
   * pending_authorities index narrows the documents first.
   */
  async reviewQueue(authority: string | null, skip: number, limit: number): Promise<{ rows: ReviewQueueRow[]; total: number }> {
    const match: QueryFilter<StoredFlightRequest> = authority ? { pending_authorities: authority } : { 'pending_authorities.0': { $exists: true } };
    const itemMatch: Record<string, unknown> = { 'review.items.status': 'pending', ...(authority ? { 'review.items.authority': authority } : {}) };
    const base = [{ $match: match }, { $unwind: '$review.items' }, { $match: itemMatch }];
    const [page, counted] = await Promise.all([
      this.model
        .aggregate<{ uuid: string; item_id: string }>([
          ...base,
          { $sort: { created_at: 1, uuid: 1 } },
          { $skip: skip },
          { $limit: limit },
          { $project: { uuid: 1, item_id: '$review.items.id' } },
        ])
        .exec(),
      this.model.aggregate<{ total: number }>([...base, { $count: 'total' }]).exec(),
    ]);
    const docs = await this.model
      .find({ uuid: { $in: [...new Set(page.map((row) => row.uuid))] } }, { flight_area_json: 0, polygons_json: 0, outbox: 0 })
      .lean<FlightRequestDoc[]>()
      .exec();
    const byUuid = new Map(docs.map((doc) => [doc.uuid, doc]));
    const rows = page.flatMap((row) => {
      const doc = byUuid.get(row.uuid);
      return doc ? [{ doc, itemId: row.item_id }] : [];
    });
    return { rows, total: counted[0]?.total ?? 0 };
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
