import { Schema, type Connection, type Model } from 'mongoose';
import { outboxSchemaFields, type OutboxFields } from '@dfc/kit/outbox';
import type { SubscribableWebhookKind } from '@dfc/contracts';
import type { EndpointHealth } from '../domain/endpoint-health.js';
import type { SealedSecret } from '../domain/secret-box.js';

export interface StoredSecret extends SealedSecret {
  created_at: Date;
  /** Null while current; set by a rotation to the end of the overlap. */
  expires_at: Date | null;
}

export interface WebhookEndpoint extends EndpointHealth {
  _id: string;
  version: number;
  operator_uuid: string;
  url: string;
  events: SubscribableWebhookKind[];
  description: string | null;
  /** Only ever encrypted (see SecretBox). */
  secrets: StoredSecret[];
  created_at: Date;
  updated_at: Date;
}

const secretSchema = new Schema<StoredSecret>(
  {
    ciphertext: { type: String, required: true },
    iv: { type: String, required: true },
    tag: { type: String, required: true },
    created_at: { type: Date, required: true },
    expires_at: { type: Date, default: null },
  },
  { _id: false },
);

const endpointSchema = new Schema<WebhookEndpoint & OutboxFields>(
  {
    _id: { type: String, required: true },
    version: { type: Number, required: true },
    operator_uuid: { type: String, required: true },
    url: { type: String, required: true },
    events: { type: [String], required: true },
    description: { type: String, default: null },
    enabled: { type: Boolean, required: true, default: true },
    disabled_reason: { type: String, default: null },
    secrets: { type: [secretSchema], required: true },
    consecutive_failures: { type: Number, required: true, default: 0 },
    failing_since: { type: Date, default: null },
    cooling_until: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    ...outboxSchemaFields,
  },
  { collection: 'webhook_endpoints', versionKey: false },
);
// An operator's endpoints, newest first.
endpointSchema.index({ operator_uuid: 1, created_at: -1, _id: -1 });
// Every operator's endpoints (admin), newest first.
endpointSchema.index({ created_at: -1, _id: -1 });
// The subscribers of an event: equality on all three (events is multikey).
endpointSchema.index({ operator_uuid: 1, enabled: 1, events: 1 });
// The cool-off gauge.
endpointSchema.index({ cooling_until: 1 });

export type WebhookEndpointModel = Model<WebhookEndpoint>;

export function webhookEndpointModel(connection: Connection): WebhookEndpointModel {
  return connection.model<WebhookEndpoint>('WebhookEndpoint', endpointSchema as unknown as Schema<WebhookEndpoint>);
}
