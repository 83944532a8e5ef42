import { deserialize, serialize } from 'bson';
import { commandNameAt, flagBits, OP_MSG, sectionsOf, startWireRelay, type Sections, type WireRelay } from './wire-relay.js';

/**
 * A database that answers writes at once: a relay between a service and the
 * engine (bench/wire-relay.ts) that acknowledges the driver's insert, update
 * and delete commands itself, every document written and every statement
 * matched and applied, and passes every other message (reads, indexes, the
 * driver's own traffic) on to the engine. Nothing is written.
 *
 * What a service's CPU per unit is when its writes cost it no wait, as on an
 * engine that takes many times this one's rate (item 51). Only for a flow
 * that does not read back what it wrote: the delivery's first attempt carries
 * its delivery (webhook-service's `createdCopy`), and its endpoints, created
 * before, are read from the engine.
 */
const WRITES: Record<string, string> = { insert: 'documents', update: 'updates', delete: 'deletes' };
/** flagBits: moreToCome, an unacknowledged write (w: 0) that expects no answer. */
const MORE_TO_COME = 2;

export function startInstantWrites(mongoUrl: string): Promise<WireRelay> {
  let requestId = 0;
  return startWireRelay(mongoUrl, (message) => {
    const sections = sectionsOf(message);
    if (sections === undefined) return undefined;
    const listField = WRITES[commandNameAt(message, sections.body)];
    if (listField === undefined) return undefined;
    if (flagBits(message) & MORE_TO_COME) return Buffer.alloc(0);
    const count = statementCount(message, sections, listField);
    const answer = listField === 'updates' ? { n: count, nModified: count, ok: 1 } : { n: count, ok: 1 };
    return reply(message.readInt32LE(4), ++requestId, serialize(answer));
  });
}

/** The statements of a write: its document sequence when the driver sent one, else the body's array. */
function statementCount(message: Buffer, sections: Sections, listField: string): number {
  const sequence = sections.sequences.find((candidate) => candidate.identifier === listField);
  if (sequence !== undefined) return sequence.documents;
  const body = deserialize(message.subarray(sections.body, sections.body + message.readInt32LE(sections.body)));
  const statements: unknown = body[listField];
  return Array.isArray(statements) ? statements.length : 0;
}

/** An OP_MSG answering request `responseTo`: header, no flags, one body section. */
function reply(responseTo: number, requestId: number, body: Uint8Array): Buffer {
  const message = Buffer.alloc(16 + 4 + 1 + body.length);
  message.writeInt32LE(message.length, 0);
  message.writeInt32LE(requestId, 4);
  message.writeInt32LE(responseTo, 8);
  message.writeInt32LE(OP_MSG, 12);
  message.writeUInt32LE(0, 16);
  message.writeUInt8(0, 20);
  message.set(body, 21);
  return message;
}
