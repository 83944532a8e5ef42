import type { QueryFilter } from 'mongoose';
import { AggregateStore, WITHOUT_OUTBOX, type Decide, type OutboxRelay } from '@dfc/kit/outbox';
import type { EventEnvelope, FlightRequestStatus } from '@dfc/contracts';
import { countMatching, findWhereIn } from '@dfc/kit/db';
import type { FlightRequestModel, StoredFlightRequest } from './flight-request-model.js';

export type FlightRequestDoc = StoredFlightRequest;

export type RescreeningCandidate = Pick<
  FlightRequestDoc,
  '_id' | 'operator_uuid' | 'status' | 'start_time' | 'end_time' | 'max_altitude' | 'area' | 'polygons_json' | 'review' | 'zone_screenings'
>;

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

/** Lists and the review queue never carry the geometry (it can be large; only a single GET may ask for it). */
const WITHOUT_GEOMETRY = { flight_area_json: 0, polygons_json: 0, ...WITHOUT_OUTBOX } as const;

/** Flight requests: written only through their aggregate's one write path, read by indexed queries. */
export class FlightRequestStore {
  private readonly aggregates: AggregateStore<StoredFlightRequest>;

  constructor(
    readonly model: FlightRequestModel,
    relay: OutboxRelay,
  ) {
    this.aggregates = new AggregateStore(model, relay, {
      conflictMessage: 'The flight request is being changed by someone else; try again.',
    });
  }

  /** A new request with the events of its submission. A request with this uuid may exist already: see `isDuplicateKey`. */
  insert(request: Omit<StoredFlightRequest, 'version'>, events: EventEnvelope[]): Promise<FlightRequestDoc> {
    return this.aggregates.insert(request, events);
  }

  /** Read → decide → one conditional write with the decision's events (404 when there is no such request). */
  change(uuid: string, decide: Decide<StoredFlightRequest>): Promise<FlightRequestDoc> {
    return this.aggregates.change(uuid, decide);
  }

  find(uuid: string): Promise<FlightRequestDoc | null> {
    return this.aggregates.find(uuid);
  }

  /** The uuid of the request that holds a review item, or null. */
  async uuidOfItem(itemId: string): Promise<string | null> {
    const owner = await this.model.findOne({ 'review.items.id': itemId }, { _id: 1 }).lean<{ _id: string }>().exec();
    return owner?._id ?? null;
  }

  /** The requests with these uuids, in no particular order. */
  findMany(uuids: string[]): Promise<FlightRequestDoc[]> {
    return findWhereIn<StoredFlightRequest, FlightRequestDoc>(this.model, '_id', uuids, WITHOUT_GEOMETRY);
  }

  async list(criteria: ListCriteria, skip: number, limit: number): Promise<{ items: FlightRequestDoc[]; total: number }> {
    const filter = listFilter(criteria);
    const [items, total] = await Promise.all([
      this.model.find(filter, WITHOUT_GEOMETRY).sort({ created_at: -1, _id: -1 }).skip(skip).limit(limit).lean<FlightRequestDoc[]>().exec(),
      countMatching(this.model, filter),
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
          end_time: { $gt: start },
          start_time: { $lt: end },
          operator_uuid: { $ne: operatorUuid },
          bbox_west: { $lte: east },
          bbox_east: { $gte: west },
          bbox_south: { $lte: north },
          bbox_north: { $gte: south },
        },
        { operator_uuid: 1, start_time: 1, end_time: 1, max_altitude: 1, polygons_json: 1 },
      )
      .lean<FlightRequestDoc[]>()
      .exec();
  }

  /**
   * Approved and Pending requests whose window has not ended by `after` and
   * began before `before`, with a bounding box that meets `bbox`: what a zone
   * created or changed may now affect, with what screening needs of them (no
   * stored FeatureCollection). The `{ status, end_time }` index serves it.
   */
  liveOverlapping(bbox: [number, number, number, number], after: Date, before: Date | null): Promise<RescreeningCandidate[]> {
    const [west, south, east, north] = bbox;
    return this.model
      .find(
        {
          status: { $in: ['Approved', 'Pending'] },
          end_time: { $gt: after },
          ...(before ? { start_time: { $lt: before } } : {}),
          bbox_west: { $lte: east },
          bbox_east: { $gte: west },
          bbox_south: { $lte: north },
          bbox_north: { $gte: south },
        },
        { operator_uuid: 1, status: 1, start_time: 1, end_time: 1, max_altitude: 1, area: 1, polygons_json: 1, review: 1, zone_screenings: 1 },
      )
      .lean<RescreeningCandidate[]>()
      .exec();
  }

  /** Pending requests whose start has passed, oldest start first. */
  overdue(now: Date, limit: number): Promise<Array<Pick<FlightRequestDoc, '_id'>>> {
    return this.model
      .find({ status: 'Pending', start_time: { $lte: now } }, { _id: 1 })
      .sort({ start_time: 1 })
      .limit(limit)
      .lean<Array<Pick<FlightRequestDoc, '_id'>>>()
      .exec();
  }
}

/**
 * One status is an equality (an index key before the sort); several are an
 * `$in` the scope's index filters while it walks in sort order.
 */
function listFilter(criteria: ListCriteria): QueryFilter<StoredFlightRequest> {
  const filter: QueryFilter<StoredFlightRequest> = {};
  if (criteria.operatorUuid) filter.operator_uuid = criteria.operatorUuid;
  if (criteria.reviewerAuthority) filter.review_authorities = criteria.reviewerAuthority;
  const statuses = [...new Set(criteria.statuses ?? [])];
  if (statuses.length > 0) filter.status = statuses.length === 1 ? statuses[0] : { $in: statuses };
  if (criteria.until) filter.start_time = { $lt: criteria.until };
  if (criteria.from) filter.end_time = { $gt: criteria.from };
  return filter;
}
