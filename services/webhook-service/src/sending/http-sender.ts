import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { WEBHOOK_RESPONSE_EXCERPT_BYTES } from '@dfc/contracts';
import { mayConnectTo } from '../domain/endpoint-url.js';

export interface SendResult {
  /** Null when no answer came: refused, timed out, blocked, TLS failure. */
  statusCode: number | null;
  error: string | null;
  retryAfter: string | null;
  /** The first KiB of the answer, for the delivery log. */
  responseBody: string | null;
  latencyMs: number;
}

export interface SenderOptions {
  timeoutMs: number;
  /** Development only: loopback addresses are let through; every other non-public address is refused. */
  allowLoopbackTargets: boolean;
}

/** Beyond this much of an answer the connection is dropped rather than read on. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** The words of a refused target, recognised again when the refusal comes back as a request error. */
const REFUSED_TARGET = 'is not a public address';

/**
 * POSTs one webhook. Every address a connection would use is judged by the
 * rule registration applies to a URL's literal address (`mayConnectTo`): a
 * literal host before the request is made, a host name's addresses as DNS
 * answers them, before a socket connects to any (no rebinding around a check
 * made earlier). Redirects are never followed (node:http does not); the whole
 * exchange is bounded by the timeout; it never throws, every problem becomes a
 * failed result for the log.
 */
export class WebhookSender {
  private readonly httpAgent: HttpAgent;
  private readonly httpsAgent: HttpsAgent;
  private readonly lookup: LookupFunction;

  constructor(private readonly options: SenderOptions) {
    this.httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 256 });
    this.httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 256 });
    this.lookup = publicOnlyLookup((address) => mayConnectTo(address, options));
  }

  post(url: string, body: string, headers: Record<string, string>): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      // Declared before anything can finish: a request refused as it is made finishes before the timer starts.
      let timer: NodeJS.Timeout | undefined;
      const finish = (result: Omit<SendResult, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, latencyMs: elapsed() });
      };
      const failed = (error: string) => finish({ statusCode: null, error, retryAfter: null, responseBody: null });
      let request: ReturnType<typeof httpRequest>;
      try {
        const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
        if (isIP(host) !== 0 && !mayConnectTo(host, this.options)) {
          failed(`Refused: the target ${host} ${REFUSED_TARGET}.`);
          return;
        }
        const isHttps = url.startsWith('https:');
        request = (isHttps ? httpsRequest : httpRequest)(url, {
          method: 'POST',
          agent: isHttps ? this.httpsAgent : this.httpAgent,
          lookup: this.lookup,
          headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        });
      } catch (error) {
        failed(`Invalid request: ${(error as Error).message}`);
        return;
      }
      timer = setTimeout(() => {
        failed(`Timed out after ${this.options.timeoutMs} ms.`);
        request.destroy();
      }, this.options.timeoutMs);
      request.on('response', (response) => readAnswer(response, finish));
      request.on('error', (error) => failed(describeNetworkError(error)));
      request.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

function readAnswer(response: IncomingMessage, finish: (result: Omit<SendResult, 'latencyMs'>) => void): void {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let seenBytes = 0;
  const done = () =>
    finish({
      statusCode: response.statusCode ?? null,
      error: null,
      retryAfter: headerValue(response.headers['retry-after']),
      responseBody: Buffer.concat(kept).toString('utf8'),
    });
  response.on('data', (chunk: Buffer) => {
    seenBytes += chunk.length;
    if (keptBytes < WEBHOOK_RESPONSE_EXCERPT_BYTES) {
      const part = chunk.subarray(0, WEBHOOK_RESPONSE_EXCERPT_BYTES - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
    if (seenBytes > MAX_RESPONSE_BYTES) {
      done();
      response.destroy();
    }
  });
  response.on('end', done);
  response.on('error', done);
  response.on('close', done);
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/**
 * DNS as node would ask it, refusing the whole answer when any address in it may not be reached: a
 * connection may try each address it was given, so one non-public among them is enough to refuse.
 */
function publicOnlyLookup(mayConnect: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((entry) => !mayConnect(entry.address));
      if (refused) return callback(new Error(`Refused: ${hostname} resolves to ${refused.address}, which ${REFUSED_TARGET}.`), '', 0);
      if (options.all === true) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address.`), { code: 'ENOTFOUND' }), '', 0);
      return callback(null, first.address, first.family);
    });
  };
}

/** A refused target and the usual socket errors, in words for the delivery log. */
function describeNetworkError(error: Error & { code?: string }): string {
  if (error.message.includes(REFUSED_TARGET)) return error.message;
  if (error.code === 'ECONNREFUSED') return 'Connection refused.';
  if (error.code === 'ENOTFOUND') return 'The host name could not be resolved.';
  if (error.code === 'ECONNRESET') return 'The connection was reset.';
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
