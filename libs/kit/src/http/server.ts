import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type Koa from 'koa';

export interface HttpServerLimits {
  /** A request (headers and body) must arrive whole within this time, or it gets 408. */
  requestTimeoutMs: number;
  /** Request line and headers together, in bytes; more is 431. */
  maxHeaderBytes: number;
}

export const DEFAULT_HTTP_SERVER_LIMITS: HttpServerLimits = { requestTimeoutMs: 15_000, maxHeaderBytes: 16 * 1024 };

/**
 * How long an idle keep-alive connection stays open: longer than the proxies in front keep theirs idle
 * (ingress-nginx's upstream keep-alive, HAProxy's connection pools), so that they, not this server, close it.
 * With Node's default the server closes a connection just as a proxy sends a request on it, and a proxy
 * retries no POST: its client gets a 502, or loses its connection. The gateway's own upstream pools close
 * theirs after a few seconds idle, long before this.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** What Node's parser reports, and the documented answer for it. */
const CLIENT_ERRORS: Record<string, { status: number; reason: string; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', message: 'The request was not received in time.' },
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', message: 'Request header fields are too large.' },
  HPE_INVALID_METHOD: { status: 501, reason: 'Not Implemented', message: 'Not Implemented.' },
};
const BAD_REQUEST = { status: 400, reason: 'Bad Request', message: 'Bad Request.' };

/**
 * The HTTP server of every process. Requests that never reach koa (headers
 * too large, an unknown method, a body that stops arriving) are answered here
 * in the documented shape: a JSON `{message}` and an `X-Request-Id`, instead of
 * Node's bare status lines. A slow or truncated body ends after
 * `requestTimeoutMs` (checked every second), not Node's five minutes.
 */
export function createHttpServer(app: Koa, limits: HttpServerLimits = DEFAULT_HTTP_SERVER_LIMITS): Server {
  const handle = app.callback();
  const server = createServer(
    {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.requestTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      connectionsCheckingInterval: Math.min(1_000, limits.requestTimeoutMs),
    },
    // Koa answers a failed request itself (its onerror), so the promise it returns never rejects.
    (request, response) => void handle(request, response),
  );
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => answerClientError(error, socket));
  return server;
}

function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  const inFlight = respondingTo(socket);
  if (!socket.writable || error.code === 'ECONNRESET' || inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  const answer = CLIENT_ERRORS[error.code ?? ''] ?? BAD_REQUEST;
  const requestId = inFlight?.getHeader('x-request-id') ?? randomUUID();
  const body = JSON.stringify({ message: answer.message });
  socket.end(
    `HTTP/1.1 ${answer.status} ${answer.reason}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${String(requestId)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/**
 * The response koa is writing on this connection, when the request got that
 * far (a body timing out): its `X-Request-Id` is the one the logs carry.
 * `_httpMessage` is Node's own link from a socket to its current response.
 */
function respondingTo(socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}
