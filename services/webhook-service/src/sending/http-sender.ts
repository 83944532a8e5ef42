import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { WEBHOOK_RESPONSE_EXCERPT_BYTES } from '@dfc/contracts';
import { LOOPBACK_RANGES } from '../domain/endpoint-url.js';

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

/**
 * POSTs one webhook. The agents resolve the host name and refuse private,
 * loopback (unless allowed for development), link-local and metadata addresses AFTER resolution (no DNS
 * rebinding around a check made earlier); redirects are never followed
 * (node:http does not); the whole exchange is bounded by the timeout; it
 * never throws, every problem becomes a failed result for the log.
 */
export class WebhookSender {
  private readonly httpAgent: RequestFilteringHttpAgent;
  private readonly httpsAgent: RequestFilteringHttpsAgent;

  constructor(private readonly options: SenderOptions) {
    const filtering = {
      allowPrivateIPAddress: false,
      allowMetaIPAddress: false,
      allowIPAddressList: options.allowLoopbackTargets ? [...LOOPBACK_RANGES] : [],
      keepAlive: true,
      maxSockets: 256,
    };
    this.httpAgent = new RequestFilteringHttpAgent(filtering);
    this.httpsAgent = new RequestFilteringHttpsAgent(filtering);
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
        const isHttps = url.startsWith('https:');
        request = (isHttps ? httpsRequest : httpRequest)(url, {
          method: 'POST',
          agent: isHttps ? this.httpsAgent : this.httpAgent,
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

/** The filtering agent's refusal and the usual socket errors, in words for the delivery log. */
function describeNetworkError(error: Error & { code?: string }): string {
  if (/is not allowed/.test(error.message)) return `Refused: the target resolves to a non-public address (${error.message})`;
  if (error.code === 'ECONNREFUSED') return 'Connection refused.';
  if (error.code === 'ENOTFOUND') return 'The host name could not be resolved.';
  if (error.code === 'ECONNRESET') return 'The connection was reset.';
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
