import { ConflictError, NotFoundError } from '@dfc/kit/errors';
import {
  STANDARD_WEBHOOK_HEADERS,
  WEBHOOK_HEADERS,
  WEBHOOK_USER_AGENT,
  signStandardWebhook,
  signWebhookPayload,
  type EventEnvelope,
} from '@dfc/contracts';
import type { Decide } from '@dfc/kit/outbox';
import { afterBusy, withoutCreated, type AttemptDue } from '../domain/attempt-message.js';
import { decideAfterAttempt, describeFailedStatus, type AttemptDecision } from '../domain/attempt-outcome.js';
import { busyWait, freeFormDelay } from '../domain/delay-queues.js';
import { coolingUntil, healthAfterAttempt, type AttemptVerdict } from '../domain/endpoint-health.js';
import { activeSecrets } from '../domain/signing-secrets.js';
import type { SendResult } from '../sending/http-sender.js';
import type { AttemptOutcome } from '../metrics.js';
import type { AttemptFields } from '../store/delivery-store.js';
import type { Delivery } from '../store/delivery-model.js';
import type { WebhookEndpoint } from '../store/endpoint-model.js';
import type { WebhookDeps } from './delivery-deps.js';

/**
 * One work-queue message → at most one attempt: a slot of the endpoint the
 * message names, shared by every replica (busy: the message waits on the
 * broker, longer each time in a row, nothing read) → the
 * delivery as logged (a message it no longer expects is dropped) → the
 * endpoint (disabled: the delivery fails; cooling off: the message waits out
 * the cool-off) → sign with every active secret → POST, and the slot is free
 * → decide → append the attempt, move the delivery on → the endpoint's
 * health → schedule the retry on the broker. The slot limits requests to the
 * endpoint, not the recording of their answers: the writes of attempts that
 * ended together are grouped (appendAttempt, settle), and holding slots
 * through them would both pace the endpoint's deliveries to the database's
 * latency and shrink those groups.
 */
export async function attemptDelivery(deps: WebhookDeps, message: EventEnvelope<AttemptDue>, redelivered = false): Promise<void> {
  const sending = await deps.slots.run(message.data.endpoint_id, () => sendWhenExpected(deps, message, redelivered));
  if (sending === 'busy') return deps.scheduler.later(afterBusy(message), busyWait(message.data.busy_waits ?? 0));
  if (sending.kind === 'not expected') return;
  const { delivery } = sending;
  if (sending.kind === 'unsendable') return refuseUnsendable(deps, delivery, sending.endpoint);
  if (sending.kind === 'cooling') return waitOutCoolOff(deps, delivery, message, sending.until);

  const { endpoint, result } = sending;
  const now = deps.now();
  const decision = decideAfterAttempt(result, delivery.round_attempts + 1, deps.policy.retry, now);
  // The attempt's record before the status it leads to: whoever reads a delivery as succeeded
  // (the delivery log, a test) finds the attempt that succeeded, and a failed write leaves no
  // other write under way when a shutdown closes the connection.
  await deps.deliveries.appendAttempt(delivery, attemptRecord(result, decision, now));
  const recorded = await recordOutcome(deps, delivery, message.data, decision, now);
  deps.metrics.recordAttempt(metricOutcome(decision), result.latencyMs);
  if (decision.outcome === 'succeeded') deps.metrics.recordArrival(now.getTime() - delivery.event_created_at.getTime());
  // The health first: a retry due soon must find the endpoint's cool-off already in place.
  await updateEndpointHealth(deps, endpoint, verdictOf(decision), now);
  if (recorded && decision.outcome === 'retry') await deps.scheduler.later(withoutCreated(message), decision.delayMs);
}

/** What happened in the endpoint's slot. */
type Sending =
  | { kind: 'not expected' }
  | { kind: 'unsendable'; delivery: Delivery; endpoint: WebhookEndpoint | null }
  | { kind: 'cooling'; delivery: Delivery; until: Date }
  | { kind: 'sent'; delivery: Delivery; endpoint: WebhookEndpoint; result: SendResult };

/**
 * In the endpoint's slot: the delivery (not expecting this message: nothing
 * sent), the endpoint as it is now (disabled or deleted: nothing sent;
 * cooling off: nothing sent yet), else the POST.
 */
async function sendWhenExpected(deps: WebhookDeps, message: EventEnvelope<AttemptDue>, redelivered: boolean): Promise<Sending> {
  const delivery = createdCopy(deps, message, redelivered) ?? (await deps.deliveries.find(message.data.delivery_id));
  if (!delivery || !isExpected(delivery, message.data)) return { kind: 'not expected' };
  const endpoint = await deps.endpoints.findForAttempt(delivery.endpoint_id);
  if (!endpoint || !endpoint.enabled) return { kind: 'unsendable', delivery, endpoint };
  const until = coolingUntil(endpoint, deps.now());
  if (until) return { kind: 'cooling', delivery, until };
  return { kind: 'sent', delivery, endpoint, result: await send(deps, endpoint, delivery) };
}

/**
 * The delivery as its first message carries it, when that copy is sure to be
 * current, which spares the read: nothing but an attempt changes a delivery
 * before its first attempt, except the lost-message sweep for one due longer
 * than its horizon (a new token). So: a first message the broker hands over
 * for the first time (a redelivered one may have been attempted already),
 * well within that horizon. Otherwise undefined, and the delivery is read.
 */
function createdCopy(deps: WebhookDeps, message: EventEnvelope<AttemptDue>, redelivered: boolean): Delivery | undefined {
  const { created, delivery_id, endpoint_id, dispatch_token } = message.data;
  if (created === undefined || redelivered) return undefined;
  const createdAt = new Date(created.created_at);
  if (deps.now().getTime() - createdAt.getTime() >= deps.policy.lostAfterMs / 2) return undefined;
  return {
    _id: delivery_id,
    version: 0,
    endpoint_id,
    operator_uuid: created.operator_uuid,
    event_id: created.event_id,
    event: created.event as Delivery['event'],
    body: created.body,
    event_created_at: new Date(created.event_created_at),
    status: 'pending',
    attempt_count: 0,
    round_attempts: 0,
    next_attempt_at: createdAt,
    dispatch_token,
    created_at: createdAt,
    updated_at: createdAt,
  };
}

/** Pending, and sent under the token this message carries (not superseded by a redelivery or a sweep). */
function isExpected(delivery: Delivery, message: AttemptDue): boolean {
  return delivery.status === 'pending' && delivery.dispatch_token === message.dispatch_token;
}

async function send(deps: WebhookDeps, endpoint: WebhookEndpoint, delivery: Delivery): Promise<SendResult> {
  const secrets = activeSecrets(endpoint.secrets, deps.now()).map((sealed) => deps.secretBox.open(sealed, endpoint._id));
  const timestamp = Math.floor(deps.now().getTime() / 1000);
  return deps.sender.post(endpoint.url, delivery.body, {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    [WEBHOOK_HEADERS.id]: delivery.event_id,
    [WEBHOOK_HEADERS.event]: delivery.event,
    [WEBHOOK_HEADERS.signature]: signWebhookPayload({ rawBody: delivery.body, secrets, timestamp }),
    [STANDARD_WEBHOOK_HEADERS.id]: delivery.event_id,
    [STANDARD_WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [STANDARD_WEBHOOK_HEADERS.signature]: signStandardWebhook({ id: delivery.event_id, timestamp, rawBody: delivery.body, secrets }),
  });
}

function attemptRecord(result: SendResult, decision: AttemptDecision, now: Date): AttemptFields {
  return {
    at: now,
    status_code: result.statusCode,
    error: result.error ?? (decision.outcome === 'succeeded' ? null : describeFailedStatus(result.statusCode ?? 0)),
    latency_ms: result.latencyMs,
    response_body: result.responseBody,
  };
}

/**
 * The delivery's one write for this attempt. A final outcome (succeeded,
 * failed) changes nothing once in place, since the delivery is no longer
 * pending, so the final outcomes of the attempts ending together share one
 * command. For a retry: false when the delivery moved on meanwhile
 * (redelivered, deleted), and no retry is scheduled.
 */
async function recordOutcome(deps: WebhookDeps, delivery: Delivery, message: AttemptDue, decision: AttemptDecision, now: Date): Promise<boolean> {
  let recorded = false;
  const decide: Decide<Delivery> = (current) => {
    recorded = isExpected(current, message);
    if (!recorded) return null;
    return {
      set: {
        status: decision.outcome === 'succeeded' ? 'succeeded' : decision.outcome === 'retry' ? 'pending' : 'failed',
        attempt_count: current.attempt_count + 1,
        round_attempts: current.round_attempts + 1,
        next_attempt_at: decision.outcome === 'retry' ? new Date(now.getTime() + decision.delayMs) : null,
        updated_at: now,
      },
    };
  };
  try {
    if (decision.outcome === 'retry') await deps.deliveries.change(delivery._id, decide, delivery);
    else await deps.deliveries.settle(delivery, decide);
    return recorded;
  } catch (error) {
    if (error instanceof ConflictError || error instanceof NotFoundError) return false;
    throw error;
  }
}

/** The message waits on the broker until the cool-off ends; the log says when the delivery is due. */
async function waitOutCoolOff(deps: WebhookDeps, delivery: Delivery, message: EventEnvelope<AttemptDue>, until: Date): Promise<void> {
  const delayMs = freeFormDelay(until.getTime() - deps.now().getTime());
  await deps.deliveries.change(
    delivery._id,
    (current) =>
      isExpected(current, message.data) ? { set: { next_attempt_at: new Date(deps.now().getTime() + delayMs), updated_at: deps.now() } } : null,
    delivery,
  );
  await deps.scheduler.later(withoutCreated(message), delayMs);
}

/** A disabled (or just deleted) endpoint gets nothing: the delivery fails at once and can be redelivered once it is enabled. */
async function refuseUnsendable(deps: WebhookDeps, delivery: Delivery, endpoint: WebhookEndpoint | null): Promise<void> {
  if (!endpoint) return;
  const now = deps.now();
  const error = `Not sent: the endpoint is disabled (${endpoint.disabled_reason ?? 'no reason given'}).`;
  await deps.deliveries.appendAttempt(delivery, { at: now, status_code: null, error, latency_ms: 0, response_body: null });
  await deps.deliveries.change(
    delivery._id,
    (current) =>
      current.status === 'pending'
        ? { set: { status: 'failed', attempt_count: current.attempt_count + 1, next_attempt_at: null, updated_at: now } }
        : null,
    delivery,
  );
  deps.metrics.recordAttempt('failed', 0);
}

async function updateEndpointHealth(deps: WebhookDeps, endpoint: WebhookEndpoint, verdict: AttemptVerdict, now: Date): Promise<void> {
  // Most attempts change nothing (a success on a healthy endpoint): decided on the copy read, no write.
  if (healthAfterAttempt(endpoint, verdict, now, deps.policy.health) === null) return;
  const updated = await deps.endpoints
    .change(endpoint._id, (current) => {
      const health = healthAfterAttempt(current, verdict, now, deps.policy.health);
      return health ? { set: { ...health, updated_at: health.enabled === false ? now : current.updated_at } } : null;
    })
    .catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
  if (updated && !updated.enabled && endpoint.enabled)
    deps.log.warn({ endpoint_id: endpoint._id, reason: updated.disabled_reason }, 'webhook endpoint disabled');
}

function verdictOf(decision: AttemptDecision): AttemptVerdict {
  if (decision.outcome === 'succeeded') return 'succeeded';
  return decision.outcome === 'gone' ? 'gone' : 'failed';
}

function metricOutcome(decision: AttemptDecision): AttemptOutcome {
  return decision.outcome === 'retry' ? 'retrying' : decision.outcome;
}
