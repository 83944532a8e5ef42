import { RoutingKeys } from '../events/routing-keys.js';

/** Spec §6 event kinds, the ones an endpoint can subscribe to. */
export const WEBHOOK_EVENT_KINDS = ['status_change', 'cascade_rejection', 'review_complete'] as const;
export type SubscribableWebhookKind = (typeof WEBHOOK_EVENT_KINDS)[number];

/** Plus `ping`, sent only by POST /api/webhooks/{id}/test, whatever the subscription. */
export const WEBHOOK_PING_KIND = 'ping';

/**
 * Plus the account's security notice, sent to every enabled endpoint of the operator whatever it
 * subscribed to: the owner must hear of a changed login or a revoked key even through an endpoint
 * set up before the notice existed, and no one holding a key can opt the account out of it.
 */
export const WEBHOOK_CREDENTIALS_KIND = 'credentials_changed';

export type WebhookEventKind = SubscribableWebhookKind | typeof WEBHOOK_PING_KIND | typeof WEBHOOK_CREDENTIALS_KIND;

/** Which domain event becomes which webhook kind. */
export const WEBHOOK_KIND_BY_ROUTING_KEY: Record<string, WebhookEventKind> = {
  [RoutingKeys.flightRequestStatusChanged]: 'status_change',
  [RoutingKeys.flightRequestCascadeRejection]: 'cascade_rejection',
  [RoutingKeys.flightRequestReviewCompleted]: 'review_complete',
  [RoutingKeys.operatorCredentialsChanged]: WEBHOOK_CREDENTIALS_KIND,
};

/** Headers of every delivery. */
export const WEBHOOK_HEADERS = {
  signature: 'X-Webhook-Signature',
  id: 'X-Webhook-Id',
  event: 'X-Webhook-Event',
} as const;

export const WEBHOOK_USER_AGENT = 'dfc-webhooks/1.0';

/** Signing secrets look like `whsec_<44 base64 chars>` (32 random bytes, standard base64 as Standard Webhooks reads it). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
