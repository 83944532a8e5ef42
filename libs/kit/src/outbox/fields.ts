import type { EventEnvelope } from '@dfc/contracts';

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
}

/** The mongoose schema fragment for a document that carries an outbox. */
export const outboxSchemaFields = {
  outbox: { type: [Object], default: [] },
  outbox_pending_since: { type: Date, index: true },
};

/** The projection that leaves the outbox out of a read: the outbox is the relay's business, never a reader's. */
export const WITHOUT_OUTBOX = { outbox: 0, outbox_pending_since: 0 } as const;

/** Fields to put into a new document that is created together with its events. */
export function outboxOnCreate(events: EventEnvelope[]): OutboxFields {
  // Nothing to publish, nothing pending: the sweep would read the document for nothing.
  return events.length > 0 ? { outbox: events, outbox_pending_since: new Date() } : { outbox: [] };
}

/** Merges "append these events" into a mongoose update document. */
export function withOutbox<U extends { $set?: Record<string, unknown>; $push?: Record<string, unknown> }>(update: U, events: EventEnvelope[]): U {
  return {
    ...update,
    $set: { ...update.$set, outbox_pending_since: new Date() },
    $push: { ...update.$push, outbox: { $each: events } },
  };
}
