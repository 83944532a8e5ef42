import { Schema, type Connection, type Model } from 'mongoose';

/**
 * A claim written into one ledger cell, as its own small document: `key` is
 * `own:<cell>` in the cells of the claim's grid level and `in:<cell>` in the
 * coarser cells around them (see domain/deconfliction/airspace-volume.ts); the
 * box in flat fields (the local engine refuses some nested arrays).
 */
export interface StoredCellClaim {
  /** `<claim>@<cell>`: writing the same claim into the same cell again changes nothing. */
  _id: string;
  key: string;
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

/** One cell-hour of the reservation ledger (`<geohash>:<UTC hour>`): only its version, raised by every claim written into it. */
export interface StoredAirspaceCell {
  _id: string;
  version: number;
}

export type AirspaceCellModel = Model<StoredAirspaceCell>;
export type CellClaimModel = Model<StoredCellClaim>;

const airspaceCellSchema = new Schema<StoredAirspaceCell>(
  { _id: { type: String, required: true }, version: { type: Number, required: true } },
  { collection: 'airspace_cells', versionKey: false },
);

const cellClaimSchema = new Schema<StoredCellClaim>(
  {
    _id: { type: String, required: true },
    key: { type: String, required: true },
    claim: { type: String, required: true },
    request: { type: String, required: true },
    operator: { type: String, required: true },
    start: { type: Date, required: true },
    end: { type: Date, required: true },
    lower_m: { type: Number, required: true },
    upper_m: { type: Number, required: true },
    west: { type: Number, required: true },
    south: { type: Number, required: true },
    east: { type: Number, required: true },
    north: { type: Number, required: true },
  },
  { collection: 'airspace_claims', versionKey: false },
);
// A cell's claims are read by key; a claim's documents are removed together.
cellClaimSchema.index({ key: 1 });
cellClaimSchema.index({ claim: 1 });

export function airspaceCellModel(connection: Connection): AirspaceCellModel {
  return connection.models['AirspaceCell'] ?? connection.model<StoredAirspaceCell>('AirspaceCell', airspaceCellSchema);
}

export function cellClaimModel(connection: Connection): CellClaimModel {
  return connection.models['CellClaim'] ?? connection.model<StoredCellClaim>('CellClaim', cellClaimSchema);
}
