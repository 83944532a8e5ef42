import { outboxOnCreate } from '@dfc/kit';
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
   * A bulk import in three round trips: which ids are live, one bulk write of
   * upserts, one insert of their events.
   */
  async upsertMany(zones: Array<{ zone: GeoZone; event: EventEnvelope }>, now: Date): Promise<{ created: number; updated: number }> {
    const ids = zones.map(({ zone }) => zone.id);
    const live = await this.model.find({ id: { $in: ids }, ...LIVE }, { id: 1 }).lean<Array<{ id: string }>>().exec();
    await this.model.bulkWrite(
      zones.map(({ zone }) => ({
        updateOne: {
          filter: { _id: zone.id },
          update: { $set: { ...toStored(zone), deleted_at: null, updated_at: now }, $setOnInsert: { created_at: now } },
          upsert: true,
        },
      })),
      { ordered: false },
    );
    await this.changes.insertMany(zones.map(({ zone, event }) => ({ zone_id: zone.id, created_at: now, ...outboxOnCreate([event]) })));
    return { created: zones.length - live.length, updated: live.length };
  }

  /** Published zone events older than `before` have done their work. */
  async forgetDoneChanges(before: Date): Promise<void> {
    await this.changes.deleteMany({ outbox: { $size: 0 }, created_at: { $lt: before } });
  }

  private async recordChange(zoneId: string, events: EventEnvelope[], now: Date): Promise<unknown> {
    const change = await this.changes.create({ zone_id: zoneId, created_at: now, ...outboxOnCreate(events) });
    return change._id;
  }
}
