import { Schema, type Connection, type Model } from 'mongoose';

/** One HTTP attempt of a delivery: the log is append-only, one insert per attempt. */
export interface StoredAttempt {
  _id: string;
  delivery_id: string;
  endpoint_id: string;
  at: Date;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  response_body: string | null;
}

const attemptSchema = new Schema<StoredAttempt>(
  {
    _id: { type: String, required: true },
    delivery_id: { type: String, required: true },
    endpoint_id: { type: String, required: true },
    at: { type: Date, required: true },
    status_code: { type: Number, default: null },
    error: { type: String, default: null },
    latency_ms: { type: Number, required: true },
    response_body: { type: String, default: null },
  },
  { collection: 'webhook_delivery_attempts', versionKey: false },
);
// A page of the delivery log reads the attempts of its deliveries in order.
attemptSchema.index({ delivery_id: 1, at: 1, _id: 1 });
// Deleting an endpoint deletes its log.
attemptSchema.index({ endpoint_id: 1 });

export type AttemptModel = Model<StoredAttempt>;

/** `ttlSeconds`: how long an attempt is kept after it was made (a TTL index on `at`). */
export function attemptModel(connection: Connection, ttlSeconds: number): AttemptModel {
  const existing = connection.models['DeliveryAttempt'] as AttemptModel | undefined;
  if (existing) return existing;
  const schema = attemptSchema.clone();
  schema.index({ at: 1 }, { expireAfterSeconds: ttlSeconds });
  return connection.model<StoredAttempt>('DeliveryAttempt', schema);
}
