import { Schema, type Connection, type Model } from 'mongoose';

/** A claim as a ledger cell stores it: the box in flat fields (the local engine refuses some nested arrays). */
export interface StoredCellClaim {
  claim: string;
  request: string;
  operator: string;
  start: Date;
  end: Date;
  lower_m: number;
  upper_m: number;
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
