import type { IncomingHttpHeaders } from 'node:http';
import { Pool, type Dispatcher } from 'undici';
import { ClientClosedRequestError, ServiceUnavailableError } from '@dfc/kit/errors';
import type { UpstreamName } from '../domain/routing.js';
import type { GatewayContext } from '../http/state.js';

export interface UpstreamSettings {
  targets: Record<UpstreamName, string>;
  /** A call the upstream has not answered in this time is given up (503). */
  timeoutMs: number;
  /** Keep-alive connections per upstream. */
  maxSockets: number;
}

export interface Forwarding {
  upstream: UpstreamName;
  /** Set on the upstream request, over the client's headers of the same name (lowercase names). */
  headers: Record<string, string>;
  /** The body already read (and checked) by the gateway, if any. */
  body: Buffer | undefined;
  /** The route's own limit on the upstream's answer, over the upstreams' one. */
  timeoutMs?: number | undefined;
}

/** A call of the gateway's own to a service (not a client's call passed on). */
export interface UpstreamCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | null;
  /** Given up after this long, however long the upstreams' own timeout is. */
  timeoutMs: number;
}

/** A service's answer, read whole. */
export interface UpstreamAnswer {
  status: number;
  body: Buffer;
}

/** Headers of one hop only (RFC 9110 §7.6.1): never passed on, in either direction. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
/**
 * A client's headers the service never receives: those of one hop; `host` (the
 * pool names the service); `content-length` (the gateway sets it for the body
 * it forwards, if any); `expect` (Node's server already answered 100-continue,
 * and undici refuses it); the API key, which never leaves the gateway.
 */
const NOT_FORWARDED = new Set([...HOP_BY_HOP, 'host', 'content-length', 'expect', 'x-api-key']);
/** Answers that have no body (koa writes none for them). */
const BODILESS_STATUSES = new Set([204, 205, 304]);

/**
 * The services behind the gateway, each reached through one undici `Pool` of
 * keep-alive connections: Node's own HTTP client, maintained with Node, and
 * cheaper per call than `http.request` with an Agent. The
 * upstream's answer is put on `ctx` rather than written, so koa sends it: the
 * error middleware, metrics and the request id apply to proxied calls too,
 * and a service that does not answer in time (or breaks off) becomes the kit's
 * 503 like any other error.
 */
export class Upstreams {
  private readonly pools = new Map<UpstreamName, Pool>();

  constructor(settings: UpstreamSettings) {
    for (const [name, target] of Object.entries(settings.targets) as Array<[UpstreamName, string]>) {
      this.pools.set(
        name,
        new Pool(target, {
          connections: settings.maxSockets,
          connectTimeout: settings.timeoutMs,
          headersTimeout: settings.timeoutMs,
          bodyTimeout: settings.timeoutMs,
        }),
      );
    }
  }

  /**
   * Sends the call on and puts the upstream's answer (status, headers, body) on `ctx`. The headers go
   * straight to the response, not through koa's `ctx.set`, which builds arrays for each header it sets,
   * a large share of what a proxied read allocates.
   */
  async forward(ctx: GatewayContext, forwarding: Forwarding): Promise<void> {
    const answer = await this.send(ctx, forwarding);
    ctx.status = answer.status;
    const listed = connectionOptions(answer.headers['connection']);
    for (const name in answer.headers) {
      const value = answer.headers[name];
      if (value !== undefined && !HOP_BY_HOP.has(name) && !listed?.has(name)) ctx.res.setHeader(name, value);
    }
    if (ctx.method !== 'HEAD' && !BODILESS_STATUSES.has(answer.status)) ctx.body = answer.body();
  }

  /**
   * Makes a call of the gateway's own (the key verification) over the same keep-alive connections and
   * returns the answer whole; a service that does not answer in time or breaks off is a 503.
   */
  async call(upstream: UpstreamName, call: UpstreamCall): Promise<UpstreamAnswer> {
    const answer = new BufferedAnswer();
    const timer = setTimeout(() => answer.cancel(new Error(`no answer in ${call.timeoutMs} ms`)), call.timeoutMs);
    try {
      await this.exchange(upstream, { path: call.path, method: call.method, headers: call.headers, body: call.body }, answer);
      return { status: answer.status, body: answer.body() };
    } catch {
      throw new ServiceUnavailableError();
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
  }

  private async send(ctx: GatewayContext, forwarding: Forwarding): Promise<BufferedAnswer> {
    const answer = new BufferedAnswer();
    // The client went away before its answer was sent: nobody waits for the service's answer.
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) answer.abort();
    });
    try {
      const headers = upstreamHeaders(ctx.req.headers, forwarding.headers);
      const timeouts = forwarding.timeoutMs === undefined ? {} : { headersTimeout: forwarding.timeoutMs, bodyTimeout: forwarding.timeoutMs };
      await this.exchange(forwarding.upstream, { path: ctx.url, method: ctx.method, headers, body: forwarding.body ?? null, ...timeouts }, answer);
      return answer;
    } catch (error) {
      if (answer.abandoned) throw new ClientClosedRequestError();
      ctx.state.log?.warn({ err: (error as Error).message, upstream: forwarding.upstream }, 'upstream unavailable');
      throw new ServiceUnavailableError();
    }
  }

  /** One request over the upstream's pool, its answer collected whole in `answer`. */
  private async exchange(upstream: UpstreamName, request: Dispatcher.DispatchOptions, answer: BufferedAnswer): Promise<void> {
    const pool = this.pools.get(upstream);
    if (pool === undefined) throw new Error(`no pool for ${upstream}`);
    // undici closes a connection after a body sent with a method that does not expect one (a DELETE with its
    // reason), and after a HEAD, in case the server mishandles them; our services are Node's HTTP server, which
    // reads such a body by its length and sends no body to a HEAD. Without `reset: false` every cancel opened a new
    // connection, which cost the gateway more CPU than the rest of the cancel.
    pool.dispatch({ ...request, reset: false }, answer);
    await answer.done;
  }
}

/** The client's headers, less those never forwarded, with the gateway's own set over them. */
function upstreamHeaders(incoming: IncomingHttpHeaders, overrides: Record<string, string>): Record<string, string | string[]> {
  const listed = connectionOptions(incoming.connection);
  const headers: Record<string, string | string[]> = {};
  for (const name in incoming) {
    const value = incoming[name];
    if (value !== undefined && !NOT_FORWARDED.has(name) && !listed?.has(name)) headers[name] = value;
  }
  return Object.assign(headers, overrides);
}

/** The header names a Connection header lists are of this hop too (RFC 9110 §7.6.1). */
function connectionOptions(connection: string | string[] | undefined): Set<string> | undefined {
  // Nearly every Connection header is one of these two, which name no other header: no set built per call.
  if (connection === undefined || connection === 'keep-alive' || connection === 'close') return undefined;
  const values = Array.isArray(connection) ? connection : [connection];
  return new Set(values.flatMap((value) => value.split(',')).map((name) => name.trim().toLowerCase()));
}

/**
 * One upstream answer, collected whole. Answers are JSON documents of bounded
 * size, so they are read into a buffer rather than streamed through koa: one
 * write to the client, and a service breaking off mid-answer becomes a clean
 * 503 instead of a cut response.
 */
class BufferedAnswer implements Dispatcher.DispatchHandler {
  status = 0;
  headers: IncomingHttpHeaders = {};
  readonly done: Promise<void>;
  private readonly chunks: Buffer[] = [];
  private controller: Dispatcher.DispatchController | undefined;
  private cancelled: Error | undefined;
  private clientLeft = false;
  private settle!: (error?: Error) => void;

  constructor() {
    this.done = new Promise((resolve, reject) => {
      this.settle = (error) => (error === undefined ? resolve() : reject(error));
    });
  }

  /** Given up because the client went away (not the service's failure). */
  get abandoned(): boolean {
    return this.clientLeft;
  }

  /** Gives the call up because the client went away. */
  abort(): void {
    this.clientLeft = true;
    this.cancel(new Error('the client went away'));
  }

  /** Gives the call up, whether it is still queued for a connection or already sent. */
  cancel(reason: Error): void {
    this.cancelled = reason;
    this.controller?.abort(reason);
  }

  body(): Buffer {
    return this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.cancelled !== undefined) controller.abort(this.cancelled);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    this.status = status;
    this.headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.settle();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.settle(error);
  }
}
