import { Schema, type Connection, type Model } from 'mongoose';
import type { DatasetIssue } from '../domain/zones/published/dataset.js';

/**
 * The last imported issue of each published dataset (ED-269 / ED-318): what a
 * newer issue is compared with, and which zones it carried. Written after the
 * issue's zones, so an import cut short is not taken for done: importing the
 * same issue again completes it.
 */
export interface StoredDataset extends Omit<DatasetIssue, 'id'> {
  _id: string;
  /** SHA-256 of the issue as read (its metadata and every zone): the same issue imported again changes nothing. */
  digest: string;
  zone_ids: string[];
  imported_at: Date;
}

export type DatasetModel = Model<StoredDataset>;

const datasetSchema = new Schema<StoredDataset>(
  {
    _id: { type: String, required: true },
    format: { type: String, required: true },
    name: { type: String, default: null },
    provider: { type: Schema.Types.Mixed, default: [] },
    description: { type: Schema.Types.Mixed, default: [] },
    issued: { type: String, default: null },
    valid_from: { type: String, default: null },
    valid_to: { type: String, default: null },
    digest: { type: String, required: true },
    zone_ids: { type: [String], default: [] },
    imported_at: { type: Date, required: true },
  },
  { collection: 'zone_datasets', versionKey: false, minimize: false, id: false },
);

export function datasetModel(connection: Connection): DatasetModel {
  return connection.models['ZoneDataset'] ?? connection.model<StoredDataset>('ZoneDataset', datasetSchema);
}

export class ZoneDatasetStore {
  constructor(readonly model: DatasetModel) {}

  async find(id: string): Promise<StoredDataset | null> {
    return this.model.findById(id).lean<StoredDataset>().exec();
  }

  /** The issue now in force (one writer per dataset at a time: imports are an admin's, one after another). */
  async save(issue: DatasetIssue, digest: string, zoneIds: string[], now: Date): Promise<void> {
    const { id, ...fields } = issue;
    await this.model.replaceOne({ _id: id }, { ...fields, _id: id, digest, zone_ids: zoneIds, imported_at: now }, { upsert: true }).exec();
  }
}
