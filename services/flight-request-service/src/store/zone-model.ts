import { Schema, type Connection, type Model } from 'mongoose';
import { outboxSchemaFields } from '@dfc/kit/outbox';
import type { GeoZone } from '../domain/zones/geo-zone.js';

/**
 * A geo-zone as stored: an aggregate with its own outbox (its zone.changed
 * events). The geometry, volumes, applicability and published details are JSON
 * text: the local engine refuses nested arrays, and nothing queries inside them
 * (the spatial index is in memory). Deleting
 * only marks the zone (`deleted_at`), a change like any other, so its event
 * leaves from the zone's outbox and a re-import of its id revives it.
 */
export interface StoredZone extends Omit<GeoZone, 'id' | 'geometry' | 'volumes' | 'applicability' | 'published'> {
  /** The zone's id. */
  _id: string;
  geometry_json: string;
  /** Absent on zones stored before published zones: they read as the own format's one volume and window. */
  volumes_json?: string;
  applicability_json?: string;
  published_json?: string | null;
  deleted_at: Date | null;
  /** SHA-256 of a published zone as imported: a newer issue rewrites only the zones whose digest changed. */
  content_digest?: string | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  /** The versions before this one, oldest first, as JSON text (each a StoredZone without outbox and history): admins read them. */
  history_json?: string;
}

export type ZoneModel = Model<StoredZone>;

const zoneSchema = new Schema<StoredZone>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    type: { type: String, required: true },
    restriction: { type: String, required: true },
    lower_limit_m: { type: Number, required: true },
    upper_limit_m: { type: Number, required: true },
    schedule: { type: Schema.Types.Mixed, default: null },
    authority: { type: String, required: true },
    ctr_exemption_ceiling_m: { type: Number, default: null },
    geometry_json: { type: String, required: true },
    volumes_json: { type: String },
    applicability_json: { type: String },
    published_json: { type: String, default: null },
    history_json: { type: String },
    identifier: { type: String, default: null },
    country: { type: String, default: null },
    dataset_id: { type: String, default: null },
    deleted_at: { type: Date, default: null },
    content_digest: { type: String, default: null },
    version: { type: Number, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    ...outboxSchemaFields,
  },
  { collection: 'zones', versionKey: false, minimize: false, id: false },
);

// Live zones (the index load) and the admin list, with or without its filters: oldest first, `_id` for stable pages.
zoneSchema.index({ deleted_at: 1, created_at: 1, _id: 1 });
zoneSchema.index({ deleted_at: 1, type: 1, created_at: 1, _id: 1 });
zoneSchema.index({ deleted_at: 1, restriction: 1, created_at: 1, _id: 1 });
zoneSchema.index({ deleted_at: 1, type: 1, restriction: 1, created_at: 1, _id: 1 });
// The zones of a published dataset (a newer issue compares itself with them).
zoneSchema.index({ dataset_id: 1, _id: 1 });
// Retired zones for admins: oldest first.
zoneSchema.index({ created_at: 1, _id: 1, deleted_at: 1 });

export function zoneModel(connection: Connection): ZoneModel {
  return connection.models['Zone'] ?? connection.model<StoredZone>('Zone', zoneSchema);
}
