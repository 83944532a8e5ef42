import { Schema, type Connection, type Model } from 'mongoose';
import type { AltitudeReference } from '@dfc/contracts';

/**
 * A claim as a ledger cell stores it: the box in flat fields (the local engine
 * refuses some nested arrays). Claims written before flights had volumes lack
 * the volume and its reference: they are volume 0, above ground.
 */
export interface StoredCellClaim {
  claim: string;
  request: string;
  operator: string;
  volume?: number;
  start: Date;
  end: Date;
  reference?: AltitudeReference;
  lower_m: number;
  upper_m: number;
  amsl_lower_m?: number | null;
  amsl_upper_m?: number | null;
  west: number;
  south: number;
  east: number;
  north: number;
}

/** One cell-hour of the reservation ledger (`<geohash>:<UTC hour>`), changed only by version-conditional writes. */
export interface StoredAirspaceCell {
  _id: string;
  version: number;
  claims: StoredCellClaim[];
}

export type AirspaceCellModel = Model<StoredAirspaceCell>;

const airspaceCellSchema = new Schema<StoredAirspaceCell>(
  {
    _id: { type: String, required: true },
    version: { type: Number, required: true },
    claims: { type: [Object], default: [] },
  },
  { collection: 'airspace_cells', versionKey: false, minimize: false },
);

export function airspaceCellModel(connection: Connection): AirspaceCellModel {
  return connection.models['AirspaceCell'] ?? connection.model<StoredAirspaceCell>('AirspaceCell', airspaceCellSchema);
}
