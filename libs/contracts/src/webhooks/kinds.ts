import { RoutingKeys } from '../events/routing-keys.js';

/** Spec §6 event kinds, plus `ping` for POST /api/webhooks/{id}/test. */
export const WEBHOOK_EVENT_KINDS = ['status_change', 'cascade_rejection', 'review_complete'] as const;
export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number] | 'ping';

/** Which domain event becomes which webhook kind. */
export const WEBHOOK_KIND_BY_ROUTING_KEY: Record<string, WebhookEventKind> = {
  [RoutingKeys.flightRequestStatusChanged]: 'status_change',
  [RoutingKeys.flightRequestCascadeRejection]: 'cascade_rejection',
  [RoutingKeys.flightRequestReviewCompleted]: 'review_complete',
};
