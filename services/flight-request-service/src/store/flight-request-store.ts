import type { QueryFilter } from 'mongoose';
import { AggregateStore, WITHOUT_OUTBOX, type OutboxRelay } from '@dfc/kit/outbox';
import type { EventEnvelope, FlightRequestStatus } from '@dfc/contracts';
import { deleteWhereIn, findUpTo, findWhereIn, ListCopies, withHour } from '@dfc/kit/db';
import { afterPosition, COUNT_LIMIT, LIST_TIME_LIMIT_MS, pageOfFound, type ListPage, type ListPosition } from '@dfc/kit/pagination';
import { NotFoundError } from '@dfc/kit/errors';
import type { Deconfliction } from '../domain/deconfliction/reservation.js';
import type { FlightRequest, FlightRequestChange, FlightRequestGeometry, FlightRequestSummary } from '../domain/flight-request/flight-request.js';
import type { AreaSummary } from '../domain/geometry/flight-area.js';
import type { ApprovedFlight } from '../domain/screening/screen.js';
import { volumesOf, type StoredVolume } from '../domain/volumes/flight-volume.js';
import { LIVE_STATUSES } from '../domain/state-machine/transitions.js';
import { SCREENING, type FlightRequestModel, type StoredFlightRequest } from './flight-request-model.js';

/** What rescreening reads of a live request: its volumes and polygons, no stored FeatureCollection. */
export type RescreeningCandidate = Pick<
  FlightRequest,
  '_id' | 'operator_uuid' | 'status' | 'start_time' | 'end_time' | 'max_altitude' | 'volumes' | 'area' | 'review' | 'zone_screenings' | 'suspension'
> & { geometry: Pick<FlightRequestGeometry, 'polygons'> };

const CANDIDATE_FIELDS = {
  operator_uuid: 1,
  status: 1,
  start_time: 1,
  end_time: 1,
  max_altitude: 1,
  volumes: 1,
  area: 1,
  polygons_json: 1,
  review: 1,
  zone_screenings: 1,
  suspension: 1,
} as const;

type StoredCandidate = Omit<RescreeningCandidate, 'geometry'> & Pick<StoredFlightRequest, 'polygons_json'>;

function toCandidate({ polygons_json: polygons, ...candidate }: StoredCandidate): RescreeningCandidate {
  return { ...candidate, geometry: { polygons: parsePolygons(polygons) } };
}

/** What a claim on the ledger asks of the request that made it: whether its reservation holds, and its exact area. */
export interface ReservationHolder {
  _id: string;
  version: number;
  status: string;
  operator_uuid: string;
  start_time: Date;
  end_time: Date;
  max_altitude: number;
  volumes?: StoredVolume[] | null;
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

/** What a list filters and sorts by: the fields its indexes hold, and all the local engine's list copies keep. */
const LISTED_FIELDS = ['operator_uuid', 'review_authorities', 'status', 'created_at', 'start_time', 'end_time'] as const;

/** Lists and the review queue never carry the geometry (it can be large; only a single GET may ask for it). */
const WITHOUT_GEOMETRY = { flight_area_json: 0, polygons_json: 0, ...WITHOUT_OUTBOX } as const;
const WITHOUT_FEATURE_COLLECTION = { flight_area_json: 0, ...WITHOUT_OUTBOX } as const;

/**
 * Flight requests: written only through their aggregate's one write path, read
 * by indexed queries. The store alone knows how a request is stored (see
 * StoredFlightRequest) and hands out the domain's FlightRequest.
 */
export class FlightRequestStore {
  private readonly aggregates: AggregateStore<StoredFlightRequest>;
  private readonly listCopies: ListCopies<StoredFlightRequest>;

  constructor(
    readonly model: FlightRequestModel,
    relay: OutboxRelay,
  ) {
    this.listCopies = new ListCopies(model, LISTED_FIELDS);
    this.aggregates = new AggregateStore(model, relay, {
      conflictMessage: 'The flight request is being changed by someone else; try again.',
      // Deconfliction withdraws and commits claims through these writes from every replica.
      acrossProcesses: true,
      listCopies: this.listCopies,
    });
  }

  /** As a replica starts: the local engine's list copies brought in line with the requests (engine-gaps.ts). */
  reconcileListCopies(): Promise<number> {
    return this.listCopies.reconcile();
  }

  /** A new request with the events of its submission. A request with this uuid may exist already: see `isDuplicateKey`. */
  async insert(request: Omit<FlightRequest, 'version'>, events: EventEnvelope[]): Promise<FlightRequest> {
    const { geometry, area, ...fields } = request;
    return toRequest(
      await this.aggregates.insert({ ...fields, ...storedEnd(fields.end_time), ...storedArea(area), ...storedGeometry(geometry) }, events),
    );
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
      ...storedEnd(fields.end_time),
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
    const projection = {
      status: 1,
      version: 1,
      operator_uuid: 1,
      start_time: 1,
      end_time: 1,
      max_altitude: 1,
      volumes: 1,
      deconfliction: 1,
      polygons_json: 1,
    };
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
   * submission is removed (its client never had an answer), an amendment's
   * `next` claim is dropped (the held one stays), any other request loses
   * the claim. Whether the claim is gone now.
   */
  async withdrawClaim(holder: ReservationHolder, claim: string): Promise<boolean> {
    const reservation = holder.deconfliction;
    if (reservation?.next?.claim === claim) {
      const changed = await this.aggregates.change(holder._id, (stored) =>
        stored.deconfliction?.next?.claim === claim ? { set: { deconfliction: { ...stored.deconfliction, next: null } } } : null,
      );
      return changed.deconfliction?.next?.claim !== claim;
    }
    if (reservation?.claim !== claim) return true;
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

  /**
   * The requests with these uuids, in no particular order, each with its polygons (not its
   * FeatureCollection): what a review-queue page shows and compares, in one read.
   */
  async findManyWithPolygons(uuids: string[]): Promise<SummaryWithPolygons[]> {
    const found = await findWhereIn<StoredFlightRequest, StoredSummary & Pick<StoredFlightRequest, 'polygons_json'>>(
      this.model,
      '_id',
      uuids,
      WITHOUT_FEATURE_COLLECTION,
    );
    return found.map(({ polygons_json: polygons, ...summary }) => ({ summary: toSummary(summary), polygons: parsePolygons(polygons) }));
  }

  /**
   * A page of a list, newest first: by `skip` with its total counted up to COUNT_LIMIT, or after a
   * cursor's position without one. One item more than the page is read, to know whether a next
   * page exists; every query stops at LIST_TIME_LIMIT_MS.
   */
  async list(criteria: ListCriteria, at: ListPosition): Promise<ListPage<FlightRequestSummary>> {
    const filter = listFilter(criteria);
    const query = (at.after ? { $and: [filter, afterPosition('created_at', -1, at.after)] } : filter) as QueryFilter<StoredFlightRequest>;
    const { found, total } = await this.listCopies.page<StoredSummary>({
      filter: query,
      sort: { created_at: -1, _id: -1 },
      skip: at.skip ?? 0,
      limit: at.limit + 1,
      projection: WITHOUT_GEOMETRY,
      countUpTo: at.after ? undefined : COUNT_LIMIT,
      maxTimeMS: LIST_TIME_LIMIT_MS,
    });
    const { items, nextCursor } = pageOfFound(found, at.limit, (item) => ({ at: item.created_at, id: item._id }));
    return { items: items.map(toSummary), total, nextCursor };
  }

  /**
   * Requests of other operators in `status` (or one of several) whose window and bounding box overlap (the
   * exact areas are the caller's to compare). Without a sort, an `$in` of statuses is an equality the index serves.
   */
  async overlapping(
    status: FlightRequestStatus | readonly FlightRequestStatus[],
    operatorUuid: string,
    start: Date,
    end: Date,
    bbox: [number, number, number, number],
  ): Promise<ApprovedFlight[]> {
    const flights = await this.model
      .find({ status: statusCondition(status), ...overlapConditions({ operatorUuid, start, end, bbox }) }, OVERLAPPING_FIELDS)
      .lean<StoredOverlapping[]>()
      .exec();
    return flights.map(toApprovedFlight);
  }

  /**
   * `overlapping` for each of several probes in one query (an `$or` of their conditions): the
   * answer for each probe, in the probes' order, each request sorted to the probes it meets by
   * the same comparisons the query makes.
   */
  async overlappingEach(status: FlightRequestStatus | readonly FlightRequestStatus[], probes: readonly OverlapProbe[]): Promise<ApprovedFlight[][]> {
    if (probes.length === 0) return [];
    const flights = await this.model
      .find(
        { status: statusCondition(status), $or: probes.map(overlapConditions) },
        { ...OVERLAPPING_FIELDS, bbox_west: 1, bbox_south: 1, bbox_east: 1, bbox_north: 1 },
      )
      .lean<Array<StoredOverlapping & Pick<StoredFlightRequest, 'bbox_west' | 'bbox_south' | 'bbox_east' | 'bbox_north'>>>()
      .exec();
    const approved = flights.map((flight) => ({ stored: flight, flight: toApprovedFlight(flight) }));
    return probes.map((probe) => approved.filter(({ stored }) => meetsProbe(stored, probe)).map(({ flight }) => flight));
  }

  /**
   * Live requests (`LIVE_STATUSES`) whose window has not ended by `after` and
   * began before `before`, with a bounding box that meets `bbox`: what a zone
   * created or changed may now affect, with what screening needs of them (no
   * stored FeatureCollection). The `{ status, end_time }` index serves it;
   * with `only`, the one request of that uuid, if it is among them (`_id`).
   */
  async liveOverlapping(bbox: [number, number, number, number], after: Date, before: Date | null, only?: string): Promise<RescreeningCandidate[]> {
    const [west, south, east, north] = bbox;
    const candidates = await this.model
      .find(
        {
          ...(only === undefined ? {} : { _id: only }),
          status: { $in: [...LIVE_STATUSES] },
          end_time: { $gt: after },
          ...(before ? { start_time: { $lt: before } } : {}),
          bbox_west: { $lte: east },
          bbox_east: { $gte: west },
          bbox_south: { $lte: north },
          bbox_north: { $gte: south },
        },
        CANDIDATE_FIELDS,
      )
      .lean<StoredCandidate[]>()
      .exec();
    return candidates.map(toCandidate);
  }

  /** The requests a zone suspended (wherever the zone is now): what lifting it reinstates. */
  async suspendedBy(zoneId: string): Promise<RescreeningCandidate[]> {
    const suspended = await this.model.find({ 'suspension.zone_ids': zoneId }, CANDIDATE_FIELDS).lean<StoredCandidate[]>().exec();
    return suspended.map(toCandidate);
  }

  /**
   * Flights whose window has closed, oldest end first: Approved ones once their end has passed, Activated
   * ones once it is `graceMs` behind. The `{ status, end_time }` index serves each.
   */
  async windowClosed(now: Date, graceMs: number, limit: number): Promise<Array<Pick<FlightRequest, '_id'>>> {
    const closed = (status: FlightRequestStatus, endedBy: Date) =>
      findUpTo<Pick<FlightRequest, '_id'>>(this.model, { status }, 'end_time', endedBy, limit, { _id: 1 });
    const [approved, activated] = await Promise.all([closed('Approved', now), closed('Activated', new Date(now.getTime() - graceMs))]);
    return [...approved, ...activated];
  }

  /** Up to `limit` requests in `status` (a final one) last changed before `cutoff`: what the purge removes. */
  async finalBefore(status: FlightRequestStatus, cutoff: Date, limit: number): Promise<string[]> {
    const found = await this.model
      .find({ status, updated_at: { $lt: cutoff } }, { _id: 1 })
      .limit(limit)
      .lean<Array<Pick<StoredFlightRequest, '_id'>>>()
      .exec();
    return found.map((request) => request._id);
  }

  /** Deletes requests the purge chose (of a final status, so no write can be racing it); how many were still there. */
  async purge(uuids: string[]): Promise<number> {
    const purged = await deleteWhereIn(this.model, '_id', uuids);
    await this.listCopies.removed(uuids);
    return purged;
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

/** A request of a review-queue page: its summary and its exact area. */
export interface SummaryWithPolygons {
  summary: FlightRequestSummary;
  polygons: FlightRequestGeometry['polygons'];
}

/** One request's side of `overlapping`: whose it is (its operator's own requests are left out), its window and its bounding box. */
export interface OverlapProbe {
  operatorUuid: string;
  start: Date;
  end: Date;
  bbox: [number, number, number, number];
}

const OVERLAPPING_FIELDS = { operator_uuid: 1, start_time: 1, end_time: 1, max_altitude: 1, volumes: 1, polygons_json: 1 } as const;

type StoredOverlapping = Pick<
  StoredFlightRequest,
  '_id' | 'operator_uuid' | 'start_time' | 'end_time' | 'max_altitude' | 'volumes' | 'polygons_json'
>;

function statusCondition(status: FlightRequestStatus | readonly FlightRequestStatus[]) {
  return typeof status === 'string' ? status : { $in: [...status] };
}

/** Another operator's request whose window and bounding box meet the probe's (`meetsProbe` says the same in memory). */
function overlapConditions({ operatorUuid, start, end, bbox: [west, south, east, north] }: OverlapProbe) {
  return {
    end_time: { $gt: start },
    start_time: { $lt: end },
    operator_uuid: { $ne: operatorUuid },
    bbox_west: { $lte: east },
    bbox_east: { $gte: west },
    bbox_south: { $lte: north },
    bbox_north: { $gte: south },
  };
}

function meetsProbe(
  stored: Pick<StoredFlightRequest, 'operator_uuid' | 'start_time' | 'end_time' | 'bbox_west' | 'bbox_south' | 'bbox_east' | 'bbox_north'>,
  { operatorUuid, start, end, bbox: [west, south, east, north] }: OverlapProbe,
): boolean {
  return (
    stored.end_time.getTime() > start.getTime() &&
    stored.start_time.getTime() < end.getTime() &&
    stored.operator_uuid !== operatorUuid &&
    stored.bbox_west <= east &&
    stored.bbox_east >= west &&
    stored.bbox_south <= north &&
    stored.bbox_north >= south
  );
}

function toApprovedFlight(flight: StoredOverlapping): ApprovedFlight {
  const polygons = parsePolygons(flight.polygons_json);
  return {
    uuid: flight._id,
    operator_uuid: flight.operator_uuid,
    start: flight.start_time,
    end: flight.end_time,
    max_altitude: flight.max_altitude,
    polygons,
    volumes: volumesOf({ ...flight, geometry: { polygons } }),
  };
}

/** A stored request as the domain knows it; a `Screening` one never gets this far (see SCREENING). */
function toRequest(stored: StoredFlightRequest): FlightRequest {
  const { flight_area_json: flightArea, polygons_json: polygons, ...summary } = stored;
  return {
    ...toSummary(summary),
    geometry: { flight_area: JSON.parse(flightArea) as FlightRequestGeometry['flight_area'], polygons: parsePolygons(polygons) },
  };
}

function toSummary(stored: StoredSummary): FlightRequestSummary {
  const { bbox_west: _west, bbox_south: _south, bbox_east: _east, bbox_north: _north, end_time_hour: _hour, ...request } = stored;
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
  return {
    ...fields,
    ...(fields.end_time ? storedEnd(fields.end_time) : {}),
    ...(area ? storedArea(area) : {}),
    ...(geometry ? storedGeometry(geometry) : {}),
  };
}

function storedEnd(end: Date): Pick<StoredFlightRequest, 'end_time' | 'end_time_hour'> {
  return withHour('end_time', end);
}
