import { WEBHOOK_HEADERS, WEBHOOK_USER_AGENT, signWebhookPayload } from '@dfc/contracts';
import { decideAfterAttempt, describeFailedStatus, type AttemptDecision } from '../domain/attempt-outcome.js';
import { DISABLED_REASONS, failingReason, hasFailedTooLong } from '../domain/endpoint-health.js';
import { activeSecrets } from '../domain/signing-secrets.js';
import type { HandedOver } from '../dispatch/dispatcher.js';
import type { SendResult } from '../dispatch/http-sender.js';
import type { AttemptOutcome } from '../metrics.js';
import type { ClaimedDelivery } from '../store/delivery-store.js';
import type { WebhookEndpoint } from '../store/endpoint-model.js';
import type { WebhookDeps } from './delivery-deps.js';

/**
 * One attempt at one claimed delivery: sign with every active secret and a
 * fresh timestamp → POST → decide (success, retry when, failed, gone) →
 * save the attempt → update the endpoint's health. Returns when the next
 * attempt is due, if any.
 */
export async function attemptDelivery(deps: WebhookDeps, { delivery, endpoint: known }: HandedOver): Promise<Date | null> {
  const endpoint = known ?? (await deps.endpoints.findById(delivery.endpoint_id));
  if (!endpoint || !endpoint.enabled) return refuseUnsendable(deps, delivery, endpoint);

  const result = await send(deps, endpoint, delivery);
  const now = deps.now();
  const decision = decideAfterAttempt(result, delivery.round_attempts + 1, deps.policy.retry, now);
  const nextAttemptAt = decision.outcome === 'retry' ? new Date(now.getTime() + decision.delayMs) : null;
  const attempt = {
    at: now,
    status_code: result.statusCode,
    error: result.error ?? (decision.outcome === 'succeeded' ? null : describeFailedStatus(result.statusCode ?? 0)),
    latency_ms: result.latencyMs,
    response_body: result.responseBody,
  };
  if (decision.outcome === 'succeeded') {
    // Written with the next batch; the slot is freed now (the lease keeps the delivery to us meanwhile).
    deps.successes.record(delivery, attempt);
  } else {
    const saved = await deps.deliveries.recordAttempt(delivery, { attempt, status: statusAfter(decision), nextAttemptAt }, now);
    if (!saved) deps.log.warn({ delivery_id: delivery._id }, 'delivery lease lost before the attempt was saved');
  }
  deps.metrics.recordAttempt(metricOutcome(decision), result.latencyMs);
  await updateEndpointHealth(deps, endpoint, decision, now);
  return nextAttemptAt;
}

async function send(deps: WebhookDeps, endpoint: WebhookEndpoint, delivery: ClaimedDelivery): Promise<SendResult> {
  const secrets = activeSecrets(endpoint.secrets, deps.now()).map((sealed) => deps.secretBox.open(sealed, endpoint._id));
  const signature = signWebhookPayload({ rawBody: delivery.body, secrets });
  return deps.sender.post(endpoint.url, delivery.body, {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    [WEBHOOK_HEADERS.id]: delivery.event_id,
    [WEBHOOK_HEADERS.event]: delivery.event,
    [WEBHOOK_HEADERS.signature]: signature,
  });
}

/** A disabled (or just deleted) endpoint gets nothing: the delivery fails at once and can be redelivered later. */
async function refuseUnsendable(deps: WebhookDeps, delivery: ClaimedDelivery, endpoint: WebhookEndpoint | null): Promise<null> {
  const now = deps.now();
  const reason = endpoint ? `Not sent: the endpoint is disabled (${endpoint.disabled_reason ?? 'no reason given'}).` : 'Not sent: the endpoint no longer exists.';
  await deps.deliveries.recordAttempt(
    delivery,
    { attempt: { at: now, status_code: null, error: reason, latency_ms: 0, response_body: null }, status: 'failed', nextAttemptAt: null },
    now,
  );
  deps.metrics.recordAttempt('failed', 0);
  return null;
}

async function updateEndpointHealth(deps: WebhookDeps, endpoint: WebhookEndpoint, decision: AttemptDecision, now: Date): Promise<void> {
  if (decision.outcome === 'succeeded') {
    // Also when the endpoint as read was healthy but an attempt of this replica has failed since.
    if (endpoint.failing_since !== null || deps.failingEndpoints.has(endpoint._id)) {
      deps.failingEndpoints.delete(endpoint._id);
      await deps.endpoints.markHealthy(endpoint._id);
    }
    return;
  }
  deps.failingEndpoints.add(endpoint._id);
  if (decision.outcome === 'gone') {
    await deps.endpoints.disable(endpoint._id, DISABLED_REASONS.gone, now);
    deps.log.warn({ endpoint_id: endpoint._id }, 'webhook endpoint answered 410, disabled');
    return;
  }
  if (endpoint.failing_since === null) {
    await deps.endpoints.markFailing(endpoint._id, now);
  } else if (hasFailedTooLong(endpoint.failing_since, now, deps.policy.disableAfterMs)) {
    const disabled = await deps.endpoints.disable(endpoint._id, failingReason(deps.policy.disableAfterMs), now, endpoint.failing_since);
    if (disabled) deps.log.warn({ endpoint_id: endpoint._id }, 'webhook endpoint failing too long, disabled');
  }
}

function statusAfter(decision: AttemptDecision): 'pending' | 'failed' {
  return decision.outcome === 'retry' ? 'pending' : 'failed';
}

function metricOutcome(decision: AttemptDecision): AttemptOutcome {
  return decision.outcome === 'retry' ? 'retrying' : decision.outcome;
}
