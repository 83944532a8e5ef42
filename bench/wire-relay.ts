import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay between a service and its database that sees each whole message
 * the driver sends (the wire protocol frames every message with its length in
 * its first four bytes). The service is pointed at the relay (its MONGO_URL),
 * so nothing in the service changes. What the engine sends back passes
 * through untouched.
 */
export const OP_MSG = 2013;
const HEADER_BYTES = 16;

/** What the relay does with a message: undefined passes it on to the engine; a buffer is sent back instead (empty: nothing is). */
export type MessageHandler = (message: Buffer) => Buffer | undefined;

export interface WireRelay {
  /** MONGO_URL for the service: the same database, through the relay. */
  url: string;
  close(): Promise<void>;
}

export async function startWireRelay(mongoUrl: string, handle: MessageHandler): Promise<WireRelay> {
  const target = /^mongodb:\/\/(?:[^@/]*@)?([^:/,?]+):?(\d+)?/.exec(mongoUrl);
  if (!target?.[1]) throw new Error(`cannot relay ${mongoUrl}: one mongodb://host:port is needed`);
  const host = target[1];
  const port = Number(target[2] ?? 27017);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, host);
    sockets.add(client).add(upstream);
    upstream.pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    let pending: Buffer = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= HEADER_BYTES && pending.length >= pending.readInt32LE(0)) {
        const length = pending.readInt32LE(0);
        const message = pending.subarray(0, length);
        const answer = handle(message);
        if (answer === undefined) upstream.write(message);
        else if (answer.length > 0) client.write(answer);
        pending = pending.subarray(length);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const separator = mongoUrl.includes('?') ? '&' : '?';
  return {
    url: `${mongoUrl.replace(`${host}${target[2] ? `:${target[2]}` : ''}`, `127.0.0.1:${address.port}`)}${separator}directConnection=true`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An OP_MSG's sections after its header and flag bits: the body (kind 0) and the document sequences (kind 1). */
export interface Sections {
  /** Where the body's BSON document starts. */
  body: number;
  /** Each document sequence's identifier and how many BSON documents it holds. */
  sequences: Array<{ identifier: string; documents: number }>;
}

/** An OP_MSG's flag bits: bit 0 says a checksum ends the message, bit 1 (moreToCome) that no answer is expected. */
export function flagBits(message: Buffer): number {
  return message.readUInt32LE(HEADER_BYTES);
}

/** The sections of an OP_MSG; undefined for other messages. */
export function sectionsOf(message: Buffer): Sections | undefined {
  if (message.readInt32LE(12) !== OP_MSG) return undefined;
  const sections: Sections = { body: -1, sequences: [] };
  // The last four bytes are a checksum when flag bit 0 is set.
  const end = message.length - (flagBits(message) & 1 ? 4 : 0);
  let offset = HEADER_BYTES + 4;
  while (offset < end) {
    const kind = message.readUInt8(offset);
    if (kind === 0) {
      sections.body = offset + 1;
      offset += 1 + message.readInt32LE(offset + 1);
      continue;
    }
    // kind 1: int32 size of the section (which counts itself), the identifier as a C string, then documents.
    const sectionEnd = offset + 1 + message.readInt32LE(offset + 1);
    const identifierEnd = message.indexOf(0, offset + 5);
    let documents = 0;
    for (let at = identifierEnd + 1; at < sectionEnd; at += message.readInt32LE(at)) documents++;
    sections.sequences.push({ identifier: message.toString('utf8', offset + 5, identifierEnd), documents });
    offset = sectionEnd;
  }
  return sections.body < 0 ? undefined : sections;
}

/** The command an OP_MSG's body names: its first field. */
export function commandNameAt(message: Buffer, body: number): string {
  // BSON document: int32 size, then the first element: type byte, its name as a C string.
  const nameStart = body + 4 + 1;
  return message.toString('utf8', nameStart, message.indexOf(0, nameStart));
}
