import type { EventEnvelope } from '@dfc/contracts';
import { withHour } from '../db/engine-gaps.js';

/**
 * Transactional outbox without transactions: a state change and the events it
 * causes are written in the same single-document update (`outbox` array in the
 * document itself). The relay then publishes them with confirms and pulls
 * them out. A crash between the write and the publish leaves the entries in
 * the document, and the sweep publishes them after restart; a crash between
 * publish and pull publishes again, which consumers absorb (idempotent by id).
 */
export interface OutboxFields {
  outbox: EventEnvelope[];
  outbox_pending_since?: Date;
  /** The hour of `outbox_pending_since`, by which the local engine's sweep finds it (engine-gaps `findUpTo`). */
  outbox_pending_since_hour?: number;
}

/** The mongoose schema fragment for a document that carries an outbox. */
export const outboxSchemaFields = {
  outbox: { type: [Object], default: [] },
  outbox_pending_since: { type: Date, index: true },
  outbox_pending_since_hour: { type: Number, index: true },
};

/** The projection that leaves the outbox out of a read: the outbox is the relay's business, never a reader's. */
export const WITHOUT_OUTBOX = { outbox: 0, outbox_pending_since: 0, outbox_pending_since_hour: 0 } as const;

/** What a write that published every entry unsets. */
export const NOTHING_PENDING = { outbox_pending_since: 1, outbox_pending_since_hour: 1 } as const;

/** Fields to put into a new document that is created together with its events. */
export function outboxOnCreate(events: EventEnvelope[]): OutboxFields {
  // Nothing to publish, nothing pending: the sweep would read the document for nothing.
  return events.length > 0 ? { outbox: events, ...pendingNow() } : { outbox: [] };
}

/** Merges "append these events" into a mongoose update document. */
export function withOutbox<U extends { $set?: Record<string, unknown>; $push?: Record<string, unknown> }>(update: U, events: EventEnvelope[]): U {
  return {
    ...update,
    $set: { ...update.$set, ...pendingNow() },
    $push: { ...update.$push, outbox: { $each: events } },
  };
}

function pendingNow(): Pick<OutboxFields, 'outbox_pending_since' | 'outbox_pending_since_hour'> {
  return withHour('outbox_pending_since', new Date());
}
