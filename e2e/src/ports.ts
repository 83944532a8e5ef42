import { createServer } from 'node:net';

/** How often a start is tried on fresh ports before its failure stands. */
export const PORT_ATTEMPTS = 3;

/** A start that failed because a port it was to listen on had been taken since it was found free. */
export class PortTakenError extends Error {
  constructor(
    readonly port: number,
    detail: string,
  ) {
    super(`port ${port} was taken before it could be bound\n${detail}`);
  }
}

/**
 * A port nothing listens on now. The kernel hands it out of its ephemeral range, which outgoing connections
 * draw from too, so it may be taken again before the process meant for it binds it: starts that meet that
 * go through `retryOnTakenPort`.
 */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The port a process's output says it could not listen on, as Node words it (`listen EADDRINUSE: … 127.0.0.1:8081`). */
export function portTakenIn(output: readonly string[]): number | undefined {
  for (const line of output) {
    const match = /EADDRINUSE\b[^\n]*?:(\d+)\b/.exec(line);
    if (match) return Number(match[1]);
  }
  return undefined;
}

/**
 * Runs `start`; while it fails with a PortTakenError, has `move` give the taken port's user a fresh one, and
 * runs it again, `attempts` times in all. Any other failure, or the last one, stands.
 */
export async function retryOnTakenPort<T>(start: () => Promise<T>, move: (taken: number) => Promise<void>, attempts = PORT_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start();
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= attempts) throw error;
      await move(error.port);
    }
  }
}
