import { Schema, type Connection, type Model } from 'mongoose';
import type { DeliveryStatus, WebhookEventKind } from '@dfc/contracts';

/**
 * One event for one endpoint. Durable: the dispatcher works from these
 * documents only, so a restart resumes every pending retry. Its attempts are
 * in webhook_delivery_attempts.
 */
export interface Delivery {
  _id: string;
  endpoint_id: string;
  operator_uuid: string;
  event_id: string;
  event: WebhookEventKind;
  /** The exact JSON sent on every attempt. */
  body: string;
  status: DeliveryStatus;
  /** Attempts in all, and attempts since the delivery was (re)scheduled (drives the retry schedule). */
  attempt_count: number;
  round_attempts: number;
  next_attempt_at: Date | null;
  /** A dispatcher's claim: nobody else sends this delivery until the lease ends. */
  lease_until: Date | null;
  lease_token: string | null;
  created_at: Date;
  updated_at: Date;
}

const deliverySchema = new Schema<Delivery>(
  {
    _id: { type: String, required: true },
    endpoint_id: { type: String, required: true },
    operator_uuid: { type: String, required: true },
    event_id: { type: String, required: true },
    event: { type: String, required: true },
    body: { type: String, required: true },
    status: { type: String, required: true },
    attempt_count: { type: Number, required: true, default: 0 },
    round_attempts: { type: Number, required: true, default: 0 },
    next_attempt_at: { type: Date, default: null },
    lease_until: { type: Date, default: null },
    lease_token: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'webhook_deliveries', versionKey: false },
);
// A broker message handled twice never creates a second delivery.
deliverySchema.index({ event_id: 1, endpoint_id: 1 }, { unique: true });
// The dispatcher's claim query and the queue-depth gauges.
deliverySchema.index({ status: 1, next_attempt_at: 1 });
// The delivery log of one endpoint, newest first.
deliverySchema.index({ endpoint_id: 1, created_at: -1 });

export type DeliveryModel = Model<Delivery>;

export function deliveryModel(connection: Connection): DeliveryModel {
  return connection.model<Delivery>('Delivery', deliverySchema);
}
