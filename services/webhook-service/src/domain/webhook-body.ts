import type { EventEnvelope, WebhookEventKind, WebhookPayload } from '@dfc/contracts';

/**
 * The exact bytes a subscriber receives, built once per event and stored
 * with the delivery, so every retry sends (and signs) the same body.
 * Flight request events get `uuid` (the flight request's uuid) added to
 * their data for convenience; everything else is the data as published.
 */
export function buildWebhookBody(event: EventEnvelope, kind: WebhookEventKind): string {
  const data = { ...(event.data as Record<string, unknown>) };
  if (typeof data['flight_request_uuid'] === 'string') data['uuid'] = data['flight_request_uuid'];
  const payload: WebhookPayload = { id: event.id, event: kind, created_at: event.occurred_at, data };
  return JSON.stringify(payload);
}

export function buildPingBody(eventId: string, endpointId: string, now: Date): string {
  const payload: WebhookPayload = {
    id: eventId,
    event: 'ping',
    created_at: now.toISOString(),
    data: { webhook_id: endpointId, message: 'Test event sent with POST /api/webhooks/{id}/test.' },
  };
  return JSON.stringify(payload);
}
