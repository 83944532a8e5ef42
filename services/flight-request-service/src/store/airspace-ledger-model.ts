import { Schema, type Connection, type Model } from 'mongoose';
import type { AltitudeReference } from '@dfc/contracts';

/**
 * One volume of a claim written into one ledger cell, as its own small
 * document: `key` is `own:<cell>` in the cells of the volume's grid level and
 * `in:<cell>` in the coarser cells around them (see
 * domain/deconfliction/airspace-volume.ts); its band in its reference and
 * above mean sea level (domain/volumes/band.ts); the box in flat fields (the
 * local engine refuses some nested arrays). Claims written before flights had
 * volumes lack the volume and its reference: they are volume 0, above ground.
 */
export interface StoredCellClaim {
  /** `<claim>.<volume>@<cell>`: writing the same claim into the same cell again changes nothing. */
  _id: string;
  key: string;
  /** The cell version its write raised the cell to (rewritten by a retry): a reader that knows the cell up to a version reads only what came after. */
  at: number;
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
    at: { type: Number, required: true },
    claim: { type: String, required: true },
    request: { type: String, required: true },
    operator: { type: String, required: true },
    start: { type: Date, required: true },
    end: { type: Date, required: true },
    volume: { type: Number, default: 0 },
    reference: { type: String, default: 'AGL' },
    lower_m: { type: Number, required: true },
    upper_m: { type: Number, required: true },
    amsl_lower_m: { type: Number, default: null },
    amsl_upper_m: { type: Number, default: null },
    west: { type: Number, required: true },
    south: { type: Number, required: true },
    east: { type: Number, required: true },
    north: { type: Number, required: true },
  },
  { collection: 'airspace_claims', versionKey: false },
);
// A cell's claims are read by key, or by key and the version that wrote them; a claim's documents are removed together.
cellClaimSchema.index({ key: 1, at: 1 });
cellClaimSchema.index({ claim: 1 });

export function airspaceCellModel(connection: Connection): AirspaceCellModel {
  return connection.models['AirspaceCell'] ?? connection.model<StoredAirspaceCell>('AirspaceCell', airspaceCellSchema);
}

export function cellClaimModel(connection: Connection): CellClaimModel {
  return connection.models['CellClaim'] ?? connection.model<StoredCellClaim>('CellClaim', cellClaimSchema);
}
