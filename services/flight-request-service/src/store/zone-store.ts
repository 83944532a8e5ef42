import type { EventEnvelope } from '@dfc/contracts';
import { findWhereIn } from '@dfc/kit/db';
import { AggregateStore, WITHOUT_OUTBOX, type OutboxRelay } from '@dfc/kit/outbox';
import { ownFormatParts, type GeoZone } from '../domain/zones/geo-zone.js';
import type { StoredZone, ZoneModel } from './zone-model.js';

/** A zone as the use cases see it: geometry parsed, bookkeeping kept. */
export type ZoneDoc = GeoZone & { deleted_at: Date | null; created_at: Date; updated_at: Date; version: number; content_digest?: string | null };

/** What a decision on a zone changes, and the events it causes. */
export interface ZoneChange {
  set: Partial<Omit<ZoneDoc, 'id' | 'created_at' | 'version'>>;
  events: EventEnvelope[];
}

export interface ZoneFilter {
  type?: string;
  restriction?: string;
}

/** Deleted zones never match. */
const LIVE = { deleted_at: null };
/** Every read but the versions' leaves the outbox and the earlier versions out. */
const CURRENT_ONLY = { ...WITHOUT_OUTBOX, history_json: 0 } as const;

/**
 * Which state of a zone a copy holds: its version, which every write raises, and the time of its last change,
 * which tells a zone written again from nothing (a restore, an id created anew) from the one it replaced.
 */
export type ZoneRevision = string;

function revisionOf(stored: Pick<StoredZone, 'version' | 'updated_at'>): ZoneRevision {
  return `${stored.version}@${stored.updated_at.getTime()}`;
}

/** A batch insert stores no field whose value is null (the schema's cast leaves them out): absent reads as null. */
function isLive(stored: Pick<StoredZone, 'deleted_at'>): boolean {
  return stored.deleted_at === null || stored.deleted_at === undefined;
}

function toZone(stored: StoredZone): ZoneDoc {
  const { _id, geometry_json, volumes_json, applicability_json, published_json, history_json: _history, ...fields } = stored;
  const geometry = JSON.parse(geometry_json) as GeoZone['geometry'];
  const zone = {
    ...fields,
    id: _id,
    geometry,
    deleted_at: stored.deleted_at ?? null,
    schedule: stored.schedule ?? null,
    ctr_exemption_ceiling_m: stored.ctr_exemption_ceiling_m ?? null,
  };
  if (volumes_json === undefined || applicability_json === undefined) return { ...zone, ...ownFormatParts(zone) };
  return {
    ...zone,
    identifier: stored.identifier ?? null,
    country: stored.country ?? null,
    dataset_id: stored.dataset_id ?? null,
    volumes: (JSON.parse(volumes_json) as StoredVolume[]).map((volume) => ({ ...volume, geometry: volume.geometry ?? geometry })),
    applicability: JSON.parse(applicability_json) as GeoZone['applicability'],
    published: published_json ? (JSON.parse(published_json) as GeoZone['published']) : null,
  };
}

function toStored(fields: ZoneChange['set']): Partial<Omit<StoredZone, '_id' | 'version'>> {
  const { geometry, volumes, applicability, published, ...rest } = fields;
  return {
    ...rest,
    ...(geometry === undefined ? {} : { geometry_json: JSON.stringify(geometry) }),
    ...(volumes === undefined ? {} : { volumes_json: JSON.stringify(volumesToStore(volumes)) }),
    ...(applicability === undefined ? {} : { applicability_json: JSON.stringify(applicability) }),
    ...(published === undefined ? {} : { published_json: published === null ? null : JSON.stringify(published) }),
  };
}

function withPrevious(stored: StoredZone): string {
  const {
    history_json,
    outbox: _outbox,
    outbox_pending_since: _pending,
    outbox_pending_since_hour: _hour,
    ...version
  } = stored as StoredZone & { outbox?: unknown; outbox_pending_since?: unknown; outbox_pending_since_hour?: unknown };
  const earlier = JSON.parse(history_json ?? '[]') as unknown[];
  return JSON.stringify([...earlier, version]);
}

/** A zone of one volume stores its area once: the volume's is the zone's geometry (and one object in memory). */
type StoredVolume = Omit<GeoZone['volumes'][number], 'geometry'> & { geometry?: GeoZone['geometry'] };

function volumesToStore(volumes: GeoZone['volumes']): StoredVolume[] {
  if (volumes.length !== 1) return volumes;
  return volumes.map(({ geometry: _geometry, ...limits }) => limits);
}

/** Geo-zones: written only through their aggregate's one write path. */
export class ZoneStore {
  private readonly aggregates: AggregateStore<StoredZone>;

  constructor(
    readonly model: ZoneModel,
    relay: OutboxRelay,
  ) {
    this.aggregates = new AggregateStore(model, relay);
  }

  /** The revision of every live zone, by id: what tells a copy of the map which zones it must read again, without their geometry. */
  async liveRevisions(): Promise<Map<string, ZoneRevision>> {
    const live = await this.model
      .find(LIVE, { _id: 1, version: 1, updated_at: 1 })
      .lean<Array<Pick<StoredZone, '_id' | 'version' | 'updated_at'>>>()
      .exec();
    return new Map(live.map((stored) => [stored._id, revisionOf(stored)]));
  }

  /** The live zones among `ids`, each with its revision (a deleted or unknown id is left out). */
  async liveAmong(ids: readonly string[]): Promise<Array<{ zone: GeoZone; revision: ZoneRevision }>> {
    const found = await findWhereIn<StoredZone>(this.model, '_id', ids, CURRENT_ONLY);
    return found.filter(isLive).map((stored) => ({ zone: toZone(stored), revision: revisionOf(stored) }));
  }

  /** A live zone, or null once deleted. */
  async findLive(id: string): Promise<ZoneDoc | null> {
    const stored = await this.aggregates.find(id);
    return stored && isLive(stored) ? toZone(stored) : null;
  }

  /** A zone, live or not, with its version: what a rescreening (or a lift) is idempotent by; null when there is no such zone. */
  async findVersion(id: string): Promise<{ zone: GeoZone; version: number; live: boolean } | null> {
    const stored = await this.aggregates.find(id);
    return stored ? { zone: toZone(stored), version: stored.version, live: isLive(stored) } : null;
  }

  /** Every version of a zone, oldest first, the current one last; null when there is no such zone. */
  async versions(id: string): Promise<ZoneDoc[] | null> {
    const stored = await this.model.findById(id, WITHOUT_OUTBOX).lean<StoredZone>().exec();
    if (!stored) return null;
    const earlier = JSON.parse(stored.history_json ?? '[]') as Array<
      Omit<StoredZone, 'created_at' | 'updated_at' | 'deleted_at'> & { created_at: string; updated_at: string; deleted_at?: string | null }
    >;
    const revived = earlier.map((version) => ({
      ...version,
      created_at: new Date(version.created_at),
      updated_at: new Date(version.updated_at),
      deleted_at: version.deleted_at === null || version.deleted_at === undefined ? null : new Date(version.deleted_at),
    }));
    return [...revived.map(toZone), toZone(stored)];
  }

  /** Any zone, live or retired (admins see both). */
  async findAny(id: string): Promise<ZoneDoc | null> {
    const stored = await this.aggregates.find(id);
    return stored ? toZone(stored) : null;
  }

  /** Every zone a published dataset has carried, retired ones too, with what tells whether a new issue changes it. */
  async ofDataset(datasetId: string): Promise<Array<{ id: string; digest: string | null; retired: boolean }>> {
    const found = await this.model
      .find({ dataset_id: datasetId }, { _id: 1, content_digest: 1, deleted_at: 1 })
      .sort({ _id: 1 })
      .lean<Array<Pick<StoredZone, '_id' | 'content_digest' | 'deleted_at'>>>()
      .exec();
    return found.map((stored) => ({ id: stored._id, digest: stored.content_digest ?? null, retired: !isLive(stored) }));
  }

  /** Retired (deleted) zones, oldest first: admins only. */
  async retiredPage(skip: number, limit: number): Promise<{ items: ZoneDoc[]; total: number }> {
    const query = { deleted_at: { $ne: null } };
    const [items, total] = await Promise.all([
      this.model.find(query, CURRENT_ONLY).sort({ created_at: 1, _id: 1 }).skip(skip).limit(limit).lean<StoredZone[]>().exec(),
      this.model.countDocuments(query).exec(),
    ]);
    return { items: items.map(toZone), total };
  }

  async page(filter: ZoneFilter, skip: number, limit: number): Promise<{ items: ZoneDoc[]; total: number }> {
    const query: Record<string, unknown> = { ...LIVE };
    if (filter.type) query['type'] = filter.type;
    if (filter.restriction) query['restriction'] = filter.restriction;
    const [items, total] = await Promise.all([
      this.model.find(query, CURRENT_ONLY).sort({ created_at: 1, _id: 1 }).skip(skip).limit(limit).lean<StoredZone[]>().exec(),
      this.model.countDocuments(query).exec(),
    ]);
    return { items: items.map(toZone), total };
  }

  /** A new zone with the events of its creation. A zone with this id may exist already: see `isDuplicateKey`. */
  async insert(zone: GeoZone, now: Date, events: EventEnvelope[]): Promise<ZoneDoc> {
    const { id, ...fields } = zone;
    const stored = { ...toStored(fields), _id: id, deleted_at: null, created_at: now, updated_at: now } as Omit<StoredZone, 'version'>;
    return toZone(await this.aggregates.insert(stored, events));
  }

  /**
   * New zones in one command, each with the events of its creation; those whose id exists already are left out
   * (the caller replaces them one by one). Returns the ids inserted.
   */
  async insertNew(zones: Array<{ zone: GeoZone; events: EventEnvelope[]; contentDigest: string | null }>, now: Date): Promise<Set<string>> {
    const entries = zones.map(({ zone, events, contentDigest }) => {
      const { id, ...fields } = zone;
      const doc = { ...toStored(fields), _id: id, deleted_at: null, content_digest: contentDigest, created_at: now, updated_at: now } as Omit<
        StoredZone,
        'version'
      >;
      return { doc, events };
    });
    const inserted = await this.aggregates.insertEach(entries);
    return new Set(inserted.map((stored) => stored._id));
  }

  /** Read → decide → one conditional write with the decision's events (null: nothing to change; 404 when there is no such zone, deleted or not). */
  async change(id: string, decide: (current: ZoneDoc) => ZoneChange | null): Promise<ZoneDoc> {
    const changed = await this.aggregates.change(id, (stored) => {
      const change = decide(toZone(stored));
      // The version being replaced joins the history in the same write, so no version is ever lost.
      return change === null ? null : { set: { ...toStored(change.set), history_json: withPrevious(stored) }, events: change.events };
    });
    return toZone(changed);
  }
}
