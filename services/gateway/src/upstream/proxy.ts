import { Agent, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import httpProxy from 'http-proxy';
import type { Context } from 'koa';
import { ServiceUnavailableError } from '@dfc/kit/errors';
import type { UpstreamName } from '../domain/routing.js';

export interface UpstreamSettings {
  targets: Record<UpstreamName, string>;
  /** A call the upstream has not answered in this time is given up (503). */
  timeoutMs: number;
  /** Keep-alive sockets per upstream. */
  maxSockets: number;
}

export interface Forwarding {
  upstream: UpstreamName;
  /** Set on the upstream request, over the client's headers of the same name (lowercase names). */
  headers: Record<string, string>;
  /** The body already read (and checked) by the gateway, if any. */
  body: Buffer | undefined;
}

interface Waiting {
  resolve(response: IncomingMessage): void;
  reject(error: unknown): void;
}

/** Headers of one hop only (RFC 9110 §7.6.1): never copied from an upstream's answer. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
/** Answers that have no body (koa writes none for them). */
const BODILESS_STATUSES = new Set([204, 205, 304]);

/**
 * Answers are JSON documents of bounded size, so they are read whole and sent
 * as a buffer: cheaper per request than piping a stream through koa, and a
 * service failing mid-answer becomes a clean 503 instead of a cut response.
 */
function readAll(response: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let ended = false;
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.once('end', () => {
      ended = true;
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
    response.once('error', () => undefined);
    response.once('close', () => {
      if (!ended) reject(new ServiceUnavailableError());
    });
  });
}

/**
 * The services behind the gateway, reached through http-proxy over one
 * keep-alive agent per upstream. The proxy hands the upstream's answer back
 * (`selfHandleResponse`) instead of writing it, so koa sends it: the error
 * middleware, metrics and the request id apply to proxied calls too, and a
 * service that does not answer (or breaks off) becomes the kit's 503 like any
 * other error.
 */
export class Upstreams {
  private readonly proxies = new Map<UpstreamName, httpProxy>();
  private readonly agents: Agent[] = [];
  private readonly waiting = new WeakMap<IncomingMessage, Waiting>();

  constructor(settings: UpstreamSettings) {
    for (const [name, target] of Object.entries(settings.targets) as Array<[UpstreamName, string]>) {
      const agent = new Agent({ keepAlive: true, maxSockets: settings.maxSockets });
      const proxy = httpProxy.createProxyServer({
        target,
        agent,
        selfHandleResponse: true,
        proxyTimeout: settings.timeoutMs,
      });
      proxy.on('proxyRes', (response, request) => this.waiting.get(request)?.resolve(response));
      // The client went away before the upstream answered: nobody waits for the answer.
      proxy.on('econnreset', (error, request) => this.waiting.get(request)?.reject(error));
      this.proxies.set(name, proxy);
      this.agents.push(agent);
    }
  }

  /** Sends the call on and puts the upstream's answer (status, headers, streamed body) on `ctx`. */
  async forward(ctx: Context, forwarding: Forwarding): Promise<void> {
    const response = await this.send(ctx, forwarding);
    const status = response.statusCode ?? 502;
    const bodiless = ctx.method === 'HEAD' || BODILESS_STATUSES.has(status);
    if (bodiless) response.resume();
    // The whole answer first: a service breaking off leaves nothing of it on ctx.
    const body = bodiless ? undefined : await readAll(response);
    ctx.status = status;
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) ctx.set(name, value);
    }
    if (body !== undefined) ctx.body = body;
  }

  close(): void {
    for (const proxy of this.proxies.values()) proxy.close();
    for (const agent of this.agents) agent.destroy();
  }

  private send(ctx: Context, forwarding: Forwarding): Promise<IncomingMessage> {
    const proxy = this.proxies.get(forwarding.upstream);
    if (proxy === undefined) return Promise.reject(new ServiceUnavailableError());
    const request = ctx.req;
    return new Promise<IncomingMessage>((resolve, reject) => {
      this.waiting.set(request, { resolve, reject });
      proxy.web(
        request,
        ctx.res,
        {
          headers: forwarding.headers,
          ...(forwarding.body === undefined ? {} : { buffer: Readable.from([forwarding.body]) }),
        },
        (error) => reject(error),
      );
    })
      .catch((error: unknown) => {
        ctx.state.log?.warn({ err: (error as Error).message, upstream: forwarding.upstream }, 'upstream unavailable');
        throw new ServiceUnavailableError();
      })
      .finally(() => this.waiting.delete(request));
  }
}
