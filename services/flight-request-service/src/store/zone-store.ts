import type { QueryFilter } from 'mongoose';
import { outboxOnCreate, withOutbox } from '@dfc/kit';
import type { EventEnvelope } from '@dfc/contracts';
import type { GeoZone } from '../domain/zones/geo-zone.js';
import type { StoredZone, ZoneModel } from './zone-model.js';
import { asOutboxModel, type OutboxModel } from './outbox-model.js';

export type ZoneDoc = StoredZone & { _id: unknown };

export interface ZoneFilter {
  type?: string;
  restriction?: string;
}

/** The fields of a live zone; deleted zones never match. */
const LIVE = { deleted_at: null };

const GEO_ZONE_FIELDS = { _id: 0, outbox: 0, outbox_pending_since: 0, deleted_at: 0, created_at: 0, updated_at: 0 };

export class ZoneStore {
  readonly outboxModel: OutboxModel;

  constructor(readonly model: ZoneModel) {
    this.outboxModel = asOutboxModel(model);
  }

  /** Every live zone, as the spatial index holds them. */
  allLive(): Promise<GeoZone[]> {
    return this.model.find(LIVE, GEO_ZONE_FIELDS).lean<GeoZone[]>().exec();
  }

  findLive(id: string): Promise<ZoneDoc | null> {
    return this.model.findOne({ id, ...LIVE }).lean<ZoneDoc>().exec();
  }

  async page(filter: ZoneFilter, skip: number, limit: number): Promise<{ items: ZoneDoc[]; total: number }> {
    const query: QueryFilter<StoredZone> = { ...LIVE };
    if (filter.type) query.type = filter.type;
    if (filter.restriction) query.restriction = filter.restriction;
    const [items, total] = await Promise.all([
      this.model.find(query).sort({ created_at: 1, id: 1 }).skip(skip).limit(limit).lean<ZoneDoc[]>().exec(),
      this.model.countDocuments(query).exec(),
    ]);
    return { items, total };
  }

  /**
   * Creates or replaces a zone with its event in one write. A soft-deleted zone
   * of the same id comes back to life; `created` tells which it was.
   */
  async upsert(zone: GeoZone, event: EventEnvelope, now: Date): Promise<{ doc: ZoneDoc; created: boolean }> {
    const update = withOutbox({ $set: { ...zone, deleted_at: null, updated_at: now } }, [event]);
    const before = await this.model
      .findOneAndUpdate({ id: zone.id }, { ...update, $setOnInsert: { created_at: now } }, { upsert: true, new: false })
      .lean<ZoneDoc>()
      .exec();
    const doc = await this.model.findOne({ id: zone.id }).lean<ZoneDoc>().exec();
    if (!doc) throw new Error(`zone ${zone.id} vanished after its upsert`);
    return { doc, created: !before || before.deleted_at !== null };
  }

  /** Replaces a live zone; null when there is none. */
  async replace(zone: GeoZone, event: EventEnvelope, now: Date): Promise<ZoneDoc | null> {
    const update = withOutbox({ $set: { ...zone, updated_at: now } }, [event]);
    const result = await this.model.updateOne({ id: zone.id, ...LIVE }, update);
    return result.matchedCount === 1 ? this.findLive(zone.id) : null;
  }

  /** Marks a live zone deleted; the document stays until its event is out. */
  async softDelete(id: string, event: EventEnvelope, now: Date): Promise<ZoneDoc | null> {
    const update = withOutbox({ $set: { deleted_at: now, updated_at: now } }, [event]);
    return this.model.findOneAndUpdate({ id, ...LIVE }, update, { new: true }).lean<ZoneDoc>().exec();
  }

  /** A zone's current state for one replica's index: the live zone, or null once deleted. */
  async current(id: string): Promise<GeoZone | null> {
    return this.model.findOne({ id, ...LIVE }, GEO_ZONE_FIELDS).lean<GeoZone>().exec();
  }

  /** A brand-new zone (POST): the caller chose a fresh id. */
  async create(zone: GeoZone, event: EventEnvelope, now: Date): Promise<ZoneDoc> {
    const created = await this.model.create({ ...zone, deleted_at: null, created_at: now, updated_at: now, ...outboxOnCreate([event]) });
    return created.toObject() as ZoneDoc;
  }
}
