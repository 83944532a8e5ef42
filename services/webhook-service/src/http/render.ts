import {
  toOffsetTimestamp,
  toOffsetTimestampOrNull,
  type DeliveryRecord,
  type WebhookEndpointRecord,
  type WebhookEndpointWithSecret,
} from '@dfc/contracts';
import type { EndpointWithSecret } from '../use-cases/create-endpoint.js';
import type { DeliveryWithAttempts } from '../store/delivery-store.js';
import type { WebhookEndpoint } from '../store/endpoint-model.js';

/** The public record: never the secrets, never the internal health fields. */
export function renderEndpoint(endpoint: WebhookEndpoint): WebhookEndpointRecord {
  return {
    id: endpoint._id,
    operator_uuid: endpoint.operator_uuid,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabled_reason,
    created_at: toOffsetTimestamp(endpoint.created_at),
    updated_at: toOffsetTimestamp(endpoint.updated_at),
  };
}

export function renderEndpointWithSecret({ endpoint, secret }: EndpointWithSecret): WebhookEndpointWithSecret {
  return { ...renderEndpoint(endpoint), secret };
}

export function renderDelivery(delivery: DeliveryWithAttempts): DeliveryRecord {
  return {
    id: delivery._id,
    endpoint_id: delivery.endpoint_id,
    event_id: delivery.event_id,
    event: delivery.event,
    status: delivery.status,
    attempt_count: delivery.attempt_count,
    attempts: delivery.attempts.map((attempt) => ({
      at: toOffsetTimestamp(attempt.at),
      status_code: attempt.status_code,
      error: attempt.error,
      latency_ms: attempt.latency_ms,
      response_body: attempt.response_body,
    })),
    next_attempt_at: delivery.status === 'pending' ? toOffsetTimestampOrNull(delivery.next_attempt_at) : null,
    created_at: toOffsetTimestamp(delivery.created_at),
    updated_at: toOffsetTimestamp(delivery.updated_at),
  };
}
