import type { IncomingHttpHeaders, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';

/**
 * What the cost bench's children (bench/bare-proxy.ts, bench/bare-deliverer.ts,
 * bench/recorded-upstream.ts) share. Node built-ins only: a baseline loads
 * nothing it does not use, or it would not be the least its work costs.
 */

/** The bench's IPC channel; the child is useless without it. */
export function benchChannel(script: string, required: string): (message: unknown) => void {
  if (!process.send) throw new Error(`${script} runs as the cost bench child (${required}, an IPC channel)`);
  // The bench ends: so does this process, even if it is not told; exiting, not killed, it writes a profile NODE_OPTIONS asks for.
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
  return process.send.bind(process);
}

/** Listens on a free loopback port and tells the bench which: the child is ready. */
export function listenForTheBench(server: Server, send: (message: unknown) => void): void {
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    send({ port: typeof address === 'object' && address !== null ? address.port : 0 });
  });
}

/** An upstream's answer headers without those of its hop. */
export function answerHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const own: OutgoingHttpHeaders = { ...headers };
  delete own['connection'];
  delete own['keep-alive'];
  return own;
}

/** The upstream did not answer. */
export function unavailable(response: ServerResponse): void {
  response.writeHead(503);
  response.end();
}
