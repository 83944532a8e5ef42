import { Schema, type Connection, type Model } from 'mongoose';
import type { SubscribableWebhookKind } from '@dfc/contracts';
import type { SealedSecret } from '../domain/secret-box.js';

export interface StoredSecret extends SealedSecret {
  created_at: Date;
  /** Null while current; set by a rotation to the end of the overlap. */
  expires_at: Date | null;
}

export interface WebhookEndpoint {
  _id: string;
  operator_uuid: string;
  url: string;
  events: SubscribableWebhookKind[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  /** Only ever encrypted (see SecretBox). */
  secrets: StoredSecret[];
  /** The first failed attempt since the last success; null while healthy. */
  failing_since: Date | null;
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

const endpointSchema = new Schema<WebhookEndpoint>(
  {
    _id: { type: String, required: true },
    operator_uuid: { type: String, required: true },
    url: { type: String, required: true },
    events: { type: [String], required: true },
    description: { type: String, default: null },
    enabled: { type: Boolean, required: true, default: true },
    disabled_reason: { type: String, default: null },
    secrets: { type: [secretSchema], required: true },
    failing_since: { type: Date, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'webhook_endpoints', versionKey: false },
);
// Listing an operator's endpoints, and finding the subscribers of an event.
endpointSchema.index({ operator_uuid: 1, created_at: -1 });

export type WebhookEndpointModel = Model<WebhookEndpoint>;

export function webhookEndpointModel(connection: Connection): WebhookEndpointModel {
  return connection.model<WebhookEndpoint>('WebhookEndpoint', endpointSchema);
}
