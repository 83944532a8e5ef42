import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { text } from 'node:stream/consumers';

export interface RecordedCall {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The gateway's port of the connection the call came over: equal ports, one kept-alive connection. */
  remotePort: number | undefined;
}

export type StubHandler = (call: RecordedCall, response: ServerResponse) => void;

/**
 * A stand-in for a service behind the gateway: records every call it gets, once
 * its body has arrived whole, and answers with `handler` (by default 200 echoing
 * what it received).
 */
export interface StubUpstream {
  url: string;
  calls: RecordedCall[];
  handler: StubHandler;
  close(): Promise<void>;
}

export const echo: StubHandler = (call, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ data: { method: call.method, url: call.url, body: call.body } }));
};

export async function startStubUpstream(handler: StubHandler = echo): Promise<StubUpstream> {
  const stub = { calls: [] as RecordedCall[], handler } as StubUpstream;
  const server = createServer((request, response) => {
    // A call whose body the gateway cut off never arrives whole: it is not recorded.
    text(request).then(
      (body) => {
        const call = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body, remotePort: request.socket.remotePort };
        stub.calls.push(call);
        stub.handler(call, response);
      },
      () => response.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  stub.url = `http://127.0.0.1:${address.port}`;
  stub.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}

export function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
