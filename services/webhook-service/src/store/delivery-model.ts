import { Schema, type Connection, type Model } from 'mongoose';
import { outboxSchemaFields, type OutboxFields } from '@dfc/kit/outbox';
import type { DeliveryStatus, WebhookEventKind } from '@dfc/contracts';

/**
 * One event for one endpoint: the delivery log's entry. Attempts travel as
 * broker messages (see events/attempt-consumer.ts); this document records
 * where the delivery stands, and its creation carries the first message in
 * its outbox. Its attempts are in webhook_delivery_attempts (append-only).
 */
export interface Delivery {
  _id: string;
  version: number;
  endpoint_id: string;
  operator_uuid: string;
  event_id: string;
  event: WebhookEventKind;
  /** The exact JSON sent on every attempt. */
  body: string;
  /** When the domain event happened (end-to-end latency is measured from it). */
  event_created_at: Date;
  status: DeliveryStatus;
  /** Attempts in all, and attempts since the delivery was (re)scheduled (drives the retry schedule). */
  attempt_count: number;
  round_attempts: number;
  /** When the pending delivery is due (its message is on the work queue, or waiting in a delay queue until then). */
  next_attempt_at: Date | null;
  /**
   * Names the current message of this delivery; a message carrying another
   * token (superseded by a redelivery or by the lost-message sweep) is dropped.
   */
  dispatch_token: string;
  created_at: Date;
  updated_at: Date;
}

const deliverySchema = new Schema<Delivery & OutboxFields>(
  {
    _id: { type: String, required: true },
    version: { type: Number, required: true },
    endpoint_id: { type: String, required: true },
    operator_uuid: { type: String, required: true },
    event_id: { type: String, required: true },
    event: { type: String, required: true },
    body: { type: String, required: true },
    event_created_at: { type: Date, required: true },
    status: { type: String, required: true },
    attempt_count: { type: Number, required: true, default: 0 },
    round_attempts: { type: Number, required: true, default: 0 },
    next_attempt_at: { type: Date, default: null },
    dispatch_token: { type: String, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    ...outboxSchemaFields,
  },
  { collection: 'webhook_deliveries', versionKey: false },
);
// A broker message handled twice never creates a second delivery (and it finds the delivery of a ping).
deliverySchema.index({ event_id: 1, endpoint_id: 1 }, { unique: true });
// The lost-message sweep and the backlog gauge: pending deliveries by due time.
deliverySchema.index({ status: 1, next_attempt_at: 1, _id: 1 });
// The delivery log of one endpoint, newest first (also deleting an endpoint's log).
deliverySchema.index({ endpoint_id: 1, created_at: -1, _id: -1 });
// The same, filtered by status.
deliverySchema.index({ endpoint_id: 1, status: 1, created_at: -1, _id: -1 });

export type DeliveryModel = Model<Delivery>;

/** `ttlSeconds`: how long a delivery, its body with it, is kept after its last change (a TTL index on `updated_at`). */
export function deliveryModel(connection: Connection, ttlSeconds: number): DeliveryModel {
  const existing = connection.models['Delivery'] as DeliveryModel | undefined;
  if (existing) return existing;
  const schema = deliverySchema.clone();
  schema.index({ updated_at: 1 }, { expireAfterSeconds: ttlSeconds });
  return connection.model<Delivery>('Delivery', schema as unknown as Schema<Delivery>);
}
