import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * Counts the database commands a service process sends, whatever engine
 * answers: a TCP relay between the service and the database that reads the
 * command name of each OP_MSG the driver sends (the wire protocol's message
 * header and the first field of its body). The service is pointed at the relay
 * (its MONGO_URL), so nothing in the service changes to be counted. The
 * driver's own traffic (hello heartbeats, sessions, authentication) is left out.
 */
const OP_MSG = 2013;
const HEADER_BYTES = 16;
const DRIVER_COMMANDS = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'endSessions', 'saslStart', 'saslContinue', 'buildInfo', 'buildinfo']);

export interface CommandCounter {
  /** MONGO_URL for the service: the same database, through the relay. */
  url: string;
  /** Commands counted so far, by name. */
  counts(): Map<string, number>;
  close(): Promise<void>;
}

export async function startCommandCounter(mongoUrl: string): Promise<CommandCounter> {
  const target = /^mongodb:\/\/(?:[^@/]*@)?([^:/,?]+):?(\d+)?/.exec(mongoUrl);
  if (!target?.[1]) throw new Error(`cannot relay ${mongoUrl}: one mongodb://host:port is needed`);
  const host = target[1];
  const port = Number(target[2] ?? 27017);
  const counted = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, host);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    let pending = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= HEADER_BYTES && pending.length >= pending.readInt32LE(0)) {
        const length = pending.readInt32LE(0);
        const name = commandName(pending.subarray(0, length));
        if (name !== undefined && !DRIVER_COMMANDS.has(name)) counted.set(name, (counted.get(name) ?? 0) + 1);
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
    counts: () => new Map(counted),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The command of an OP_MSG: the first field name of its body section (kind 0); undefined for other messages. */
function commandName(message: Buffer): string | undefined {
  if (message.readInt32LE(12) !== OP_MSG) return undefined;
  // header (16), flagBits (4), then sections; the body (kind 0) comes first in what drivers send.
  let offset = HEADER_BYTES + 4;
  while (offset < message.length) {
    const kind = message.readUInt8(offset);
    if (kind === 0) {
      // BSON document: int32 size, then the first element: type byte, its name as a C string.
      const nameStart = offset + 1 + 4 + 1;
      return message.toString('utf8', nameStart, message.indexOf(0, nameStart));
    }
    // kind 1 (document sequence): int32 size of the section, which counts itself.
    offset += 1 + message.readInt32LE(offset + 1);
  }
  return undefined;
}

/** Commands in `after` beyond those in `before`, by name, and in all. */
export function commandsBetween(before: Map<string, number>, after: Map<string, number>): { total: number; byName: Map<string, number> } {
  const byName = new Map<string, number>();
  let total = 0;
  for (const [name, count] of after) {
    const added = count - (before.get(name) ?? 0);
    if (added <= 0) continue;
    byName.set(name, added);
    total += added;
  }
  return { total, byName };
}
