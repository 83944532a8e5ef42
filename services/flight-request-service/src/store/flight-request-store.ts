import type { QueryFilter } from 'mongoose';
import { AggregateStore, WITHOUT_OUTBOX, type OutboxRelay } from '@dfc/kit/outbox';
import type { EventEnvelope, FlightRequestStatus } from '@dfc/contracts';
import { countMatching, findWhereIn } from '@dfc/kit/db';
import { NotFoundError } from '@dfc/kit/errors';
import type { Deconfliction } from '../domain/deconfliction/reservation.js';
import type { FlightRequest, FlightRequestChange, FlightRequestGeometry, FlightRequestSummary } from '../domain/flight-request/flight-request.js';
import type { AreaSummary } from '../domain/geometry/flight-area.js';
import type { ApprovedFlight } from '../domain/screening/screen.js';
import { SCREENING, type FlightRequestModel, type StoredFlightRequest } from './flight-request-model.js';

/** What rescreening reads of a live request: no stored FeatureCollection. */
export type RescreeningCandidate = Pick<
  FlightRequest,
  '_id' | 'operator_uuid' | 'status' | 'start_time' | 'end_time' | 'max_altitude' | 'area' | 'review' | 'zone_screenings'
> & { geometry: Pick<FlightRequestGeometry, 'polygons'> };

/** What a claim on the ledger asks of the request that made it: whether its reservation holds, and its exact area. */
export interface ReservationHolder {
  _id: string;
  version: number;
  status: string;
  operator_uuid: string;
  start_time: Date;
  end_time: Date;
  max_altitude: number;
  deconfliction: Deconfliction | null;
  polygons: FlightRequestGeometry['polygons'];
}

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

/**
 * Flight requests: written only through their aggregate's one write path, read
 * by indexed queries. The store alone knows how a request is stored (see
 * StoredFlightRequest) and hands out the domain's FlightRequest.
 */
export class FlightRequestStore {
  private readonly aggregates: AggregateStore<StoredFlightRequest>;

  constructor(
    readonly model: FlightRequestModel,
    relay: OutboxRelay,
  ) {
    this.aggregates = new AggregateStore(model, relay, {
      conflictMessage: 'The flight request is being changed by someone else; try again.',
      // Deconfliction withdraws and commits claims through these writes from every replica.
      acrossProcesses: true,
    });
  }

  /** A new request with the events of its submission. A request with this uuid may exist already: see `isDuplicateKey`. */
  async insert(request: Omit<FlightRequest, 'version'>, events: EventEnvelope[]): Promise<FlightRequest> {
    const { geometry, area, ...fields } = request;
    return toRequest(await this.aggregates.insert({ ...fields, ...storedArea(area), ...storedGeometry(geometry) }, events));
  }

  /**
   * A submission whose approval must first reserve its airspace: stored as
   * `Screening` with its claim, without events, and invisible until
   * `completeScreening` writes its outcome (see SCREENING).
   */
  async insertScreening(request: Omit<FlightRequest, 'version'>, deconfliction: Deconfliction): Promise<StoredFlightRequest> {
    const { geometry, area, ...fields } = request;
    return this.aggregates.insert({
      ...fields,
      status: SCREENING,
      status_history: [],
      deconfliction,
      ...storedArea(area),
      ...storedGeometry(geometry),
    });
  }

  /**
   * The outcome of a `Screening` submission (`inserted`, as `insertScreening`
   * stored it), with the events of its submission, if its claim was not
   * withdrawn meanwhile; null when it was. Only what screening decides
   * changes: the request's own fields are as inserted.
   */
  async completeScreening(
    inserted: StoredFlightRequest,
    outcome: Omit<FlightRequest, 'version'>,
    events: EventEnvelope[],
  ): Promise<FlightRequest | null> {
    const claim = inserted.deconfliction?.claim;
    const { status, status_history, review, review_authorities, updated_at } = outcome;
    try {
      const completed = await this.aggregates.change(
        inserted._id,
        (stored) => {
          if (stored.status !== SCREENING || stored.deconfliction?.claim !== claim) throw new NotFoundError();
          return { set: { status, status_history, review, review_authorities, updated_at, deconfliction: outcome.deconfliction ?? null }, events };
        },
        inserted,
      );
      return toRequest(completed);
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  /** The requests that made these claims, as deconfliction reads them (submissions still `Screening` included). */
  async holders(uuids: string[]): Promise<Map<string, ReservationHolder>> {
    const projection = { status: 1, version: 1, operator_uuid: 1, start_time: 1, end_time: 1, max_altitude: 1, deconfliction: 1, polygons_json: 1 };
    const found = await findWhereIn<StoredFlightRequest, Omit<ReservationHolder, 'polygons'> & { polygons_json: string }>(
      this.model,
      '_id',
      uuids,
      projection,
    );
    return new Map(
      found.map(({ polygons_json: polygons, ...holder }) => [
        holder._id,
        { ...holder, deconfliction: holder.deconfliction ?? null, polygons: parsePolygons(polygons) },
      ]),
    );
  }

  /**
   * Withdraws a claim whose writer is taken to have died (still `claiming`
   * past its lease), so that it can never be committed: a `Screening`
   * submission is removed (its client never had an answer), any other
   * request loses the claim. Whether the claim is gone now.
   */
  async withdrawClaim(holder: ReservationHolder): Promise<boolean> {
    const claim = holder.deconfliction?.claim;
    if (!claim) return true;
    if (holder.status === SCREENING) return this.aggregates.remove(holder._id, holder.version, { 'deconfliction.claim': claim });
    const changed = await this.aggregates.change(holder._id, (stored) =>
      stored.deconfliction?.claim === claim && stored.deconfliction.state === 'claiming' ? { set: { deconfliction: null } } : null,
    );
    return changed.deconfliction?.claim !== claim;
  }

  /** Read → decide (a change of the aggregate, or null) → one conditional write with its events (404 when there is no such request). */
  async change(uuid: string, decide: (current: FlightRequest) => FlightRequestChange | null): Promise<FlightRequest> {
    const changed = await this.aggregates.change(uuid, (stored) => {
      if (stored.status === SCREENING) throw new NotFoundError();
      const change = decide(toRequest(stored));
      return change && { set: toStoredFields(change.set), ...(change.events ? { events: change.events } : {}) };
    });
    return toRequest(changed);
  }

  async find(uuid: string): Promise<FlightRequest | null> {
    const stored = await this.aggregates.find(uuid);
    return stored && stored.status !== SCREENING ? toRequest(stored) : null;
  }

  /** Whether a request with this uuid is stored, shown or still `Screening` (an idempotent retry waits for the latter). */
  async isScreening(uuid: string): Promise<boolean> {
    return (await this.aggregates.find(uuid))?.status === SCREENING;
  }

  /** The uuid of the request that holds a review item, or null. */
  async uuidOfItem(itemId: string): Promise<string | null> {
    const owner = await this.model.findOne({ 'review.items.id': itemId }, { _id: 1 }).lean<{ _id: string }>().exec();
    return owner?._id ?? null;
  }

  /** The requests with these uuids, in no particular order. */
  async findMany(uuids: string[]): Promise<FlightRequestSummary[]> {
    return (await findWhereIn<StoredFlightRequest, StoredSummary>(this.model, '_id', uuids, WITHOUT_GEOMETRY)).map(toSummary);
  }

  async list(criteria: ListCriteria, skip: number, limit: number): Promise<{ items: FlightRequestSummary[]; total: number }> {
    const filter = listFilter(criteria);
    const [items, total] = await Promise.all([
      this.model.find(filter, WITHOUT_GEOMETRY).sort({ created_at: -1, _id: -1 }).skip(skip).limit(limit).lean<StoredSummary[]>().exec(),
      countMatching(this.model, filter),
    ]);
    return { items: items.map(toSummary), total };
  }

  /** Requests of other operators in `status` whose window and bounding box overlap (the exact areas are the caller's to compare). */
  async overlapping(
    status: FlightRequestStatus,
    operatorUuid: string,
    start: Date,
    end: Date,
    bbox: [number, number, number, number],
  ): Promise<ApprovedFlight[]> {
    const [west, south, east, north] = bbox;
    const flights = await this.model
      .find(
        {
          status,
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
      .lean<Array<Pick<StoredFlightRequest, '_id' | 'operator_uuid' | 'start_time' | 'end_time' | 'max_altitude' | 'polygons_json'>>>()
      .exec();
    return flights.map((flight) => ({
      uuid: flight._id,
      operator_uuid: flight.operator_uuid,
      start: flight.start_time,
      end: flight.end_time,
      max_altitude: flight.max_altitude,
      polygons: parsePolygons(flight.polygons_json),
    }));
  }

  /**
   * Approved and Pending requests whose window has not ended by `after` and
   * began before `before`, with a bounding box that meets `bbox`: what a zone
   * created or changed may now affect, with what screening needs of them (no
   * stored FeatureCollection). The `{ status, end_time }` index serves it.
   */
  async liveOverlapping(bbox: [number, number, number, number], after: Date, before: Date | null): Promise<RescreeningCandidate[]> {
    const [west, south, east, north] = bbox;
    const candidates = await this.model
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
      .lean<Array<Omit<RescreeningCandidate, 'geometry'> & Pick<StoredFlightRequest, 'polygons_json'>>>()
      .exec();
    return candidates.map(({ polygons_json: polygons, ...candidate }) => ({ ...candidate, geometry: { polygons: parsePolygons(polygons) } }));
  }

  /** Pending requests whose start has passed, oldest start first. */
  overdue(now: Date, limit: number): Promise<Array<Pick<FlightRequest, '_id'>>> {
    return this.model
      .find({ status: 'Pending', start_time: { $lte: now } }, { _id: 1 })
      .sort({ start_time: 1 })
      .limit(limit)
      .lean<Array<Pick<FlightRequest, '_id'>>>()
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
  else filter.status = { $ne: SCREENING };
  if (criteria.until) filter.start_time = { $lt: criteria.until };
  if (criteria.from) filter.end_time = { $gt: criteria.from };
  return filter;
}

type StoredSummary = Omit<StoredFlightRequest, 'flight_area_json' | 'polygons_json'>;

/** A stored request as the domain knows it; a `Screening` one never gets this far (see SCREENING). */
function toRequest(stored: StoredFlightRequest): FlightRequest {
  const { flight_area_json: flightArea, polygons_json: polygons, ...summary } = stored;
  return {
    ...toSummary(summary),
    geometry: { flight_area: JSON.parse(flightArea) as FlightRequestGeometry['flight_area'], polygons: parsePolygons(polygons) },
  };
}

function toSummary(stored: StoredSummary): FlightRequestSummary {
  const { bbox_west: _west, bbox_south: _south, bbox_east: _east, bbox_north: _north, ...request } = stored;
  return request as FlightRequestSummary;
}

function parsePolygons(json: string): FlightRequestGeometry['polygons'] {
  return JSON.parse(json) as FlightRequestGeometry['polygons'];
}

function storedArea(area: AreaSummary): Pick<StoredFlightRequest, 'area' | 'bbox_west' | 'bbox_south' | 'bbox_east' | 'bbox_north'> {
  const [west, south, east, north] = area.bbox;
  return { area, bbox_west: west, bbox_south: south, bbox_east: east, bbox_north: north };
}

function storedGeometry(geometry: FlightRequestGeometry): Pick<StoredFlightRequest, 'flight_area_json' | 'polygons_json'> {
  return { flight_area_json: JSON.stringify(geometry.flight_area), polygons_json: JSON.stringify(geometry.polygons) };
}

/** The stored form of the fields a change sets: an area or geometry set is encoded as a new request's is. */
function toStoredFields(set: FlightRequestChange['set']): Partial<Omit<StoredFlightRequest, '_id' | 'version'>> {
  const { geometry, area, ...fields } = set;
  return { ...fields, ...(area ? storedArea(area) : {}), ...(geometry ? storedGeometry(geometry) : {}) };
}
