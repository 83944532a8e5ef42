import { Schema, type Connection, type Model } from 'mongoose';
import { outboxSchemaFields, type OutboxFields } from '@dfc/kit/broker';
import type { GeoZone } from '../domain/zones/geo-zone.js';

/**
 * A geo-zone as stored. The geometry is JSON text: FerretDB refuses nested
 * arrays, and nothing queries inside it (the spatial index is in memory).
 * Deleting only marks the zone (`deleted_at`), so a re-import of its id revives it.
 */
export interface StoredZone extends Omit<GeoZone, 'geometry'> {
  /** The zone's id again: FerretDB answers `_id` lookups without reading the whole collection. */
  _id: string;
  geometry_json: string;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type ZoneModel = Model<StoredZone>;

const zoneSchema = new Schema<StoredZone>(
  {
    _id: { type: String, required: true },
    id: { type: String, required: true },
    name: { type: String, required: true },
    type: { type: String, required: true },
    restriction: { type: String, required: true },
    lower_limit_m: { type: Number, required: true },
    upper_limit_m: { type: Number, required: true },
    schedule: { type: Schema.Types.Mixed, default: null },
    authority: { type: String, required: true },
    ctr_exemption_ceiling_m: { type: Number, default: null },
    geometry_json: { type: String, required: true },
    deleted_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'zones', versionKey: false, minimize: false, id: false },
);
zoneSchema.index({ id: 1 }, { unique: true });
zoneSchema.index({ deleted_at: 1, created_at: 1 });

export function zoneModel(connection: Connection): ZoneModel {
  return connection.models['Zone'] ?? connection.model<StoredZone>('Zone', zoneSchema);
}

/**
 * The zone.changed events, each in a record of its own written after the zone:
 * the relay then never rewrites a zone document (FerretDB updates are
 * read-then-write, so its outbox pull could undo a concurrent zone edit). A
 * crash between the two writes loses only the hint; every replica's periodic
 * full reload still picks the change up.
 */
export interface StoredZoneChange extends OutboxFields {
  /** Null for a bulk import (every replica reloads every zone). */
  zone_id: string | null;
  created_at: Date;
}

export type ZoneChangeModel = Model<StoredZoneChange>;

const zoneChangeSchema = new Schema<StoredZoneChange>(
  {
    zone_id: { type: String, default: null },
    created_at: { type: Date, required: true },
    ...outboxSchemaFields,
  },
  { collection: 'zone_changes', versionKey: false },
);

export function zoneChangeModel(connection: Connection): ZoneChangeModel {
  return connection.models['ZoneChange'] ?? connection.model<StoredZoneChange>('ZoneChange', zoneChangeSchema);
}
