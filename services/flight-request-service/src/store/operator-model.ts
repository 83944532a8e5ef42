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

/** Stored under `_id` = the operator's uuid. */
export type StoredOperator = Omit<OperatorProjection, 'uuid'> & { _id: string };

export type OperatorProjectionModel = Model<StoredOperator>;

const operatorSchema = new Schema<StoredOperator>(
  {
    _id: { type: String, required: true },
    timezone: { type: String, default: null },
    exemption_for_ctr: { type: Boolean, default: false },
    registration_number: { type: String, default: null },
    source_at: { type: Date, required: true },
  },
  { collection: 'operators', versionKey: false },
);

export function operatorProjectionModel(connection: Connection): OperatorProjectionModel {
  return connection.models['OperatorProjection'] ?? connection.model<StoredOperator>('OperatorProjection', operatorSchema);
}
