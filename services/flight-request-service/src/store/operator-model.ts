import { Schema, type Connection, type Model } from 'mongoose';

/** What this service knows of an operator, from operator.registered / operator.updated events. */
export interface OperatorProjection {
  uuid: string;
  timezone: string | null;
  exemption_for_ctr: boolean;
  /** The national operator registration number signed authorisations name. */
  registration_number: string | null;
  /** occurred_at of the event the values come from: an older event never overwrites a newer one. */
  source_at: Date;
}

export type OperatorProjectionModel = Model<OperatorProjection>;

/** Stored under `_id` = uuid: FerretDB answers `_id` lookups without reading the whole collection. */
const operatorSchema = new Schema<OperatorProjection & { _id: string }>(
  {
    _id: { type: String, required: true },
    uuid: { type: String, required: true },
    timezone: { type: String, default: null },
    exemption_for_ctr: { type: Boolean, default: false },
    registration_number: { type: String, default: null },
    source_at: { type: Date, required: true },
  },
  { collection: 'operators', versionKey: false },
);

export function operatorProjectionModel(connection: Connection): OperatorProjectionModel {
  return connection.models['OperatorProjection'] ?? connection.model<OperatorProjection>('OperatorProjection', operatorSchema as unknown as Schema<OperatorProjection>);
}
