import type { EventEnvelope } from '@dfc/contracts';
import { newEvent } from '@dfc/contracts';

/**
 * The work-queue message that makes a delivery attempt happen. It names the
 * delivery and the dispatch token it was sent under; the delivery log holds
 * everything else, so a stale or duplicated message is recognised and dropped.
 */
export const ATTEMPT_DUE = 'webhook.attempt_due';

export interface AttemptDue {
  delivery_id: string;
  /** Lets a consumer apply the per-endpoint limit before reading anything. */
  endpoint_id: string;
  dispatch_token: string;
}

export function attemptDue(delivery: { _id: string; endpoint_id: string; operator_uuid: string; dispatch_token: string }): EventEnvelope<AttemptDue> {
  return newEvent<AttemptDue>(ATTEMPT_DUE, delivery.operator_uuid, {
    delivery_id: delivery._id,
    endpoint_id: delivery.endpoint_id,
    dispatch_token: delivery.dispatch_token,
  });
}

export function isAttemptDue(data: unknown): data is AttemptDue {
  if (typeof data !== 'object' || data === null) return false;
  const { delivery_id, endpoint_id, dispatch_token } = data as Record<string, unknown>;
  return typeof delivery_id === 'string' && typeof endpoint_id === 'string' && typeof dispatch_token === 'string';
}
