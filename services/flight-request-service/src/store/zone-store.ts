import { outboxOnCreate } from '@dfc/kit/broker';
import type { EventEnvelope } from '@dfc/contracts';
import type { GeoZone } from '../domain/zones/geo-zone.js';
import type { StoredZone, ZoneChangeModel, ZoneModel } from './zone-model.js';
import { asOutboxModel, type OutboxModel } from './outbox-model.js';

/** A zone as the use cases see it: geometry parsed, bookkeeping times kept. */
export type ZoneDoc = GeoZone & { created_at: Date; updated_at: Date };

type StoredZoneDoc = StoredZone & { _id: unknown };

export interface ZoneFilter {
  type?: string;
  restriction?: string;
}

/** Deleted zones never match. */
const LIVE = { deleted_at: null };

function toZone(stored: StoredZoneDoc): ZoneDoc {
  const { _id, geometry_json, deleted_at, ...fields } = stored;
  return { ...fields, geometry: JSON.parse(geometry_json) as GeoZone['geometry'] };
}

function toStored(zone: GeoZone): Omit<StoredZone, 'deleted_at' | 'created_at' | 'updated_at'> {
  const { geometry, ...fields } = zone;
  return { ...fields, _id: zone.id, geometry_json: JSON.stringify(geometry) };
}

export class ZoneStore {
  /** The relay drains the zone change records' outboxes. */
  readonly outboxModel: OutboxModel;

  constructor(
    readonly model: ZoneModel,
    readonly changes: ZoneChangeModel,
  ) {
    this.outboxModel = asOutboxModel(changes);
  }

  /** Every live zone, as the spatial index holds them. */
  async allLive(): Promise<GeoZone[]> {
    return (await this.model.find(LIVE).lean<StoredZoneDoc[]>().exec()).map(toZone);
  }

  /** A live zone, or null once deleted (also what a replica's index reloads). */
  async findLive(id: string): Promise<ZoneDoc | null> {
    const stored = await this.model.findById(id).lean<StoredZoneDoc>().exec();
    return stored && stored.deleted_at === null ? toZone(stored) : null;
  }

  async page(filter: ZoneFilter, skip: number, limit: number): Promise<{ items: ZoneDoc[]; total: number }> {
    const query: Record<string, unknown> = { ...LIVE };
    if (filter.type) query['type'] = filter.type;
    if (filter.restriction) query['restriction'] = filter.restriction;
    const [items, total] = await Promise.all([
      this.model.find(query).sort({ created_at: 1, id: 1 }).skip(skip).limit(limit).lean<StoredZoneDoc[]>().exec(),
      this.model.countDocuments(query).exec(),
    ]);
    return { items: items.map(toZone), total };
  }

  /** A brand-new zone (POST: the caller chose a fresh id). Returns the change record to publish. */
  async create(zone: GeoZone, event: EventEnvelope, now: Date): Promise<{ doc: ZoneDoc; changeId: unknown }> {
    await this.model.create({ ...toStored(zone), deleted_at: null, created_at: now, updated_at: now });
    return { doc: { ...zone, created_at: now, updated_at: now }, changeId: await this.recordChange(zone.id, [event], now) };
  }

  /** Replaces a live zone; null when there is none. */
  async replace(zone: GeoZone, event: EventEnvelope, now: Date): Promise<{ doc: ZoneDoc; changeId: unknown } | null> {
    if (!(await this.findLive(zone.id))) return null;
    await this.model.updateOne({ _id: zone.id }, { $set: { ...toStored(zone), updated_at: now } });
    const doc = await this.findLive(zone.id);
    return doc ? { doc, changeId: await this.recordChange(zone.id, [event], now) } : null;
  }

  /** Marks a live zone deleted; false when there is none. */
  async softDelete(id: string, event: EventEnvelope, now: Date): Promise<unknown | null> {
    if (!(await this.findLive(id))) return null;
    await this.model.updateOne({ _id: id }, { $set: { deleted_at: now, updated_at: now } });
    return this.recordChange(id, [event], now);
  }

  /**
   * A bulk import: new zones in one insert, existing ones (live or deleted, by
   * id) replaced one by one, and one event for all of them (FerretDB writes are
   * slow one at a time; thousands of per-zone events would keep the relay busy
   * for minutes, while every replica reloads its whole index on this one).
   */
  async upsertMany(zones: GeoZone[], event: EventEnvelope, now: Date): Promise<{ created: number; updated: number; changeId: unknown }> {
    const existing = await this.model
      .find({ _id: { $in: zones.map((zone) => zone.id) } }, { _id: 1, deleted_at: 1 })
      .lean<Array<{ _id: string; deleted_at: Date | null }>>()
      .exec();
    const known = new Map(existing.map((zone) => [zone._id, zone.deleted_at]));
    const fresh = zones.filter((zone) => !known.has(zone.id));
    if (fresh.length > 0) {
      await this.model.insertMany(
        fresh.map((zone) => ({ ...toStored(zone), deleted_at: null, created_at: now, updated_at: now })),
        { ordered: false },
      );
    }
    for (const zone of zones.filter((candidate) => known.has(candidate.id))) {
      await this.model.updateOne({ _id: zone.id }, { $set: { ...toStored(zone), deleted_at: null, updated_at: now } });
    }
    const changeId = await this.recordChange(null, [event], now);
    const revived = [...known.values()].filter((deletedAt) => deletedAt !== null).length;
    return { created: fresh.length + revived, updated: known.size - revived, changeId };
  }

  /** Published zone events older than `before` have done their work. */
  async forgetDoneChanges(before: Date): Promise<void> {
    await this.changes.deleteMany({ outbox: { $size: 0 }, created_at: { $lt: before } });
  }

  private async recordChange(zoneId: string | null, events: EventEnvelope[], now: Date): Promise<unknown> {
    const change = await this.changes.create({ zone_id: zoneId, created_at: now, ...outboxOnCreate(events) });
    return change._id;
  }
}
