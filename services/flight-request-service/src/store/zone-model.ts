import { Schema, type Connection, type Model } from 'mongoose';
import { outboxSchemaFields, type OutboxFields } from '@dfc/kit';
import type { GeoZone } from '../domain/zones/geo-zone.js';

/**
 * A geo-zone as stored. Deleting only marks it (`deleted_at`): the document
 * keeps its outbox until the zone.changed event that tells the replicas is
 * published.
 */
export interface StoredZone extends GeoZone, OutboxFields {
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type ZoneModel = Model<StoredZone>;

const zoneSchema = new Schema<StoredZone>(
  {
    id: { type: String, required: true },
    name: { type: String, required: true },
    type: { type: String, required: true },
    restriction: { type: String, required: true },
    lower_limit_m: { type: Number, required: true },
    upper_limit_m: { type: Number, required: true },
    schedule: { type: Schema.Types.Mixed, default: null },
    authority: { type: String, required: true },
    ctr_exemption_ceiling_m: { type: Number, default: null },
    geometry: { type: Schema.Types.Mixed, required: true },
    deleted_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    ...outboxSchemaFields,
  },
  { collection: 'zones', versionKey: false, minimize: false, id: false },
);
zoneSchema.index({ id: 1 }, { unique: true });
zoneSchema.index({ deleted_at: 1, created_at: 1 });

export function zoneModel(connection: Connection): ZoneModel {
  return connection.models['Zone'] ?? connection.model<StoredZone>('Zone', zoneSchema);
}
