import type { DeliveryRecord, WebhookEndpointRecord, WebhookEndpointWithSecret } from '@dfc/contracts';
import type { EndpointWithSecret } from '../use-cases/create-endpoint.js';
import type { DeliveryWithAttempts } from '../store/delivery-store.js';
import type { WebhookEndpoint } from '../store/endpoint-model.js';

/** ISO 8601 with a numeric offset, as every record of the API (`2026-11-23T10:00:00+00:00`). */
export function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

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
    created_at: timestamp(endpoint.created_at),
    updated_at: timestamp(endpoint.updated_at),
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
      at: preciseTimestamp(attempt.at),
      status_code: attempt.status_code,
      error: attempt.error,
      latency_ms: attempt.latency_ms,
      response_body: attempt.response_body,
    })),
    next_attempt_at: delivery.next_attempt_at ? preciseTimestamp(delivery.next_attempt_at) : null,
    created_at: timestamp(delivery.created_at),
    updated_at: timestamp(delivery.updated_at),
  };
}

/** Attempts can be milliseconds apart (tests, bursts): the log keeps the milliseconds. */
function preciseTimestamp(date: Date): string {
  return date.toISOString().replace(/Z$/, '+00:00');
}
