import {
  toOffsetTimestamp,
  type CascadeRejectionPayload,
  type CredentialsChangedPayload,
  type EventEnvelope,
  type FlightRequestCascadeRejection,
  type FlightRequestReviewCompleted,
  type FlightRequestStatusChanged,
  type OperatorCredentialsChanged,
  type PingPayload,
  type PublicReviewItem,
  type ReviewCompletePayload,
  type ReviewItemSummary,
  type StatusChangePayload,
  type SubscribableWebhookKind,
  type WebhookPayload,
} from '@dfc/contracts';

/** The kinds the fan-out turns domain events into: every kind but the test ping. */
export type FannedOutKind = SubscribableWebhookKind | 'credentials_changed';

/**
 * The internal event → the public payload, field by field: nothing of the
 * internal event reaches a subscriber unless it is named here (and in the
 * contract, libs/contracts/src/webhooks/payloads.ts). Every timestamp is
 * written as the API writes them (numeric offset, whole seconds).
 */
export function publicPayload(event: EventEnvelope, kind: FannedOutKind): WebhookPayload {
  const created_at = toOffsetTimestamp(new Date(event.occurred_at));
  if (kind === 'credentials_changed') return credentialsChanged(event as EventEnvelope<OperatorCredentialsChanged>, created_at);
  if (kind === 'status_change') return statusChange(event as EventEnvelope<FlightRequestStatusChanged>, created_at);
  if (kind === 'cascade_rejection') return cascadeRejection(event as EventEnvelope<FlightRequestCascadeRejection>, created_at);
  return reviewComplete(event as EventEnvelope<FlightRequestReviewCompleted>, created_at);
}

export function pingPayload(eventId: string, endpointId: string, now: Date): PingPayload {
  return {
    id: eventId,
    event: 'ping',
    created_at: toOffsetTimestamp(now),
    data: { webhook_id: endpointId, message: 'Test event sent with POST /api/webhooks/{id}/test.' },
  };
}

/** What changed and when; not the address the email notice goes to, and nothing secret (there is nothing secret in the event either). */
function credentialsChanged({ id, data }: EventEnvelope<OperatorCredentialsChanged>, created_at: string): CredentialsChangedPayload {
  return {
    id,
    event: 'credentials_changed',
    created_at,
    data: { operator_uuid: data.uuid, changes: [...data.changes], key_id: data.key_id, changed_at: created_at },
  };
}

function statusChange({ id, data }: EventEnvelope<FlightRequestStatusChanged>, created_at: string): StatusChangePayload {
  return {
    id,
    event: 'status_change',
    created_at,
    data: {
      ...aboutFlightRequest(data),
      previous_status: data.previous_status,
      status: data.status,
      reason: data.reason,
      actor: data.actor,
      changed_at: timestamp(data.changed_at),
    },
  };
}

function cascadeRejection({ id, data }: EventEnvelope<FlightRequestCascadeRejection>, created_at: string): CascadeRejectionPayload {
  return {
    id,
    event: 'cascade_rejection',
    created_at,
    data: {
      ...aboutFlightRequest(data),
      rejected_item: reviewItem(data.rejected_item),
      cascaded_items: data.cascaded_items.map(reviewItem),
      reason: data.reason,
      occurred_at: timestamp(data.occurred_at),
    },
  };
}

function reviewComplete({ id, data }: EventEnvelope<FlightRequestReviewCompleted>, created_at: string): ReviewCompletePayload {
  const { total, approved, rejected, cascade_rejected, withdrawn } = data.counts;
  return {
    id,
    event: 'review_complete',
    created_at,
    data: {
      ...aboutFlightRequest(data),
      outcome: data.outcome,
      items: data.items.map(reviewItem),
      counts: { total, approved, rejected, cascade_rejected, withdrawn },
      completed_at: timestamp(data.completed_at),
    },
  };
}

/** `sequence` is the status-history position the flight-request-service puts on its events (null when an event has none). */
function aboutFlightRequest(data: { flight_request_uuid: string; operator_uuid: string; sequence?: unknown }) {
  const sequence = typeof data.sequence === 'number' && Number.isInteger(data.sequence) && data.sequence >= 1 ? data.sequence : null;
  return { uuid: data.flight_request_uuid, flight_request_uuid: data.flight_request_uuid, operator_uuid: data.operator_uuid, sequence };
}

function reviewItem(item: ReviewItemSummary): PublicReviewItem {
  return {
    id: item.id,
    kind: item.kind,
    authority: item.authority,
    zone_id: item.zone_id,
    status: item.status,
    reason: item.reason,
    decided_at: item.decided_at === null ? null : timestamp(item.decided_at),
  };
}

function timestamp(text: string): string {
  return toOffsetTimestamp(new Date(text));
}
