import { newEvent, type EventEnvelope } from '@dfc/contracts';
import { ATTEMPT_DUE, ATTEMPTS_DUE } from '../messaging.js';

/**
 * The work-queue message that makes a delivery attempt happen. It names the
 * delivery and the dispatch token it was sent under; the delivery log holds
 * everything else, so a stale or duplicated message is recognised and dropped.
 * A delivery's first message, sent by the fan-out that created it, also
 * carries the delivery as created (`created`), so its first attempt need not
 * read it back; every later message (a retry, a wait, a redelivery, the
 * sweep's) names the delivery alone.
 */
export interface AttemptDue {
  delivery_id: string;
  /** Lets a consumer apply the per-endpoint limit before reading anything. */
  endpoint_id: string;
  dispatch_token: string;
  created?: CreatedDelivery;
  /** How many times in a row this message found its endpoint busy (its wait grows with each: `busyWait`). */
  busy_waits?: number;
}

/** The delivery as the fan-out created it (pending, never attempted, version 0), beside the fields the message names. */
export interface CreatedDelivery {
  operator_uuid: string;
  event_id: string;
  event: string;
  /** The exact JSON every attempt sends. */
  body: string;
  event_created_at: string;
  created_at: string;
}

export function attemptDue(delivery: { _id: string; endpoint_id: string; operator_uuid: string; dispatch_token: string }): EventEnvelope<AttemptDue> {
  return newEvent<AttemptDue>(ATTEMPT_DUE, delivery.operator_uuid, {
    delivery_id: delivery._id,
    endpoint_id: delivery.endpoint_id,
    dispatch_token: delivery.dispatch_token,
  });
}

/** The first message of a delivery just created, carrying it. */
export function firstAttemptDue(delivery: {
  _id: string;
  endpoint_id: string;
  operator_uuid: string;
  dispatch_token: string;
  event_id: string;
  event: string;
  body: string;
  event_created_at: Date;
  created_at: Date;
}): EventEnvelope<AttemptDue> {
  const message = attemptDue(delivery);
  const { operator_uuid, event_id, event, body } = delivery;
  const created = {
    operator_uuid,
    event_id,
    event,
    body,
    event_created_at: delivery.event_created_at.toISOString(),
    created_at: delivery.created_at.toISOString(),
  };
  return { ...message, data: { ...message.data, created } };
}

/**
 * The same message naming the delivery alone: what goes back on the broker for a retry or a
 * cool-off, since the delivery moves on meanwhile (and a busy endpoint's waits start again).
 */
export function withoutCreated(message: EventEnvelope<AttemptDue>): EventEnvelope<AttemptDue> {
  const { created: _created, busy_waits: _busyWaits, ...named } = message.data;
  return { ...message, data: named };
}

/** The message going back on the broker because its endpoint was busy: one more busy wait counted. */
export function afterBusy(message: EventEnvelope<AttemptDue>): EventEnvelope<AttemptDue> {
  const named = withoutCreated(message);
  return { ...named, data: { ...named.data, busy_waits: (message.data.busy_waits ?? 0) + 1 } };
}

/**
 * Work-queue messages published as one broker message: the first messages of
 * one event's deliveries, or of events fanned out at the same moment. The
 * broker's hop (a publish and its confirm, a delivery and its ack) is paid
 * once for all of them instead of once each.
 * Each message inside is handled as if it had come alone, and the broker
 * message is acked once all of them are; a replica dying first leaves it
 * unacked, and each delivery is read before it is attempted again.
 */
export interface AttemptsDue {
  messages: EventEnvelope<AttemptDue>[];
}

export function attemptsDue(operatorUuid: string | null, messages: EventEnvelope<AttemptDue>[]): EventEnvelope<AttemptsDue> {
  return newEvent<AttemptsDue>(ATTEMPTS_DUE, operatorUuid, { messages });
}

/** The work-queue messages a broker message carries: itself, or those inside it; undefined when malformed. */
export function carriedMessages(message: EventEnvelope): EventEnvelope<AttemptDue>[] | undefined {
  if (message.type !== ATTEMPTS_DUE) return isAttemptDue(message.data) ? [message as EventEnvelope<AttemptDue>] : undefined;
  const { messages } = (message.data ?? {}) as { messages?: unknown };
  if (!Array.isArray(messages) || messages.length === 0) return undefined;
  return messages.every((inner: unknown) => typeof inner === 'object' && inner !== null && isAttemptDue((inner as EventEnvelope).data))
    ? (messages as EventEnvelope<AttemptDue>[])
    : undefined;
}

export function isAttemptDue(data: unknown): data is AttemptDue {
  if (typeof data !== 'object' || data === null) return false;
  const { delivery_id, endpoint_id, dispatch_token, created, busy_waits } = data as Record<string, unknown>;
  return (
    typeof delivery_id === 'string' &&
    typeof endpoint_id === 'string' &&
    typeof dispatch_token === 'string' &&
    (created === undefined || isCreated(created)) &&
    (busy_waits === undefined || (Number.isInteger(busy_waits) && (busy_waits as number) >= 0))
  );
}

function isCreated(created: unknown): created is CreatedDelivery {
  if (typeof created !== 'object' || created === null) return false;
  const fields = created as Record<string, unknown>;
  return ['operator_uuid', 'event_id', 'event', 'body', 'event_created_at', 'created_at'].every((field) => typeof fields[field] === 'string');
}
