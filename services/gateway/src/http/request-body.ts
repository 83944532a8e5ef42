import { getDefaultHighWaterMark, Transform, type TransformCallback } from 'node:stream';
import type { Context } from 'koa';
import { PayloadTooLargeError } from '@dfc/kit/errors';
import { refuseBodyHeaders, reserveBody, type BodyBudget } from '@dfc/kit/http';
import type { ProxyRoute } from '../domain/routing.js';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * What a body streamed through holds of the heap at once, at most: a buffer's worth in each stream it passes
 * (the client's socket, the two sides of the counting stream, the upstream's socket), since each of them stops
 * reading while the next one is full.
 */
export const STREAMED_BODY_HELD_BYTES = 4 * getDefaultHighWaterMark(false);

/** A client's body on its way to the service, and the reason it was cut off, if it was. */
export interface ForwardedBody {
  stream: Transform;
  /** The client declared its length (`Content-Length`); undefined for a chunked body. */
  declaredBytes: number | undefined;
  /** Set when the body went over the route's limit: the client's answer, whatever the service's call says. */
  readonly refusal: PayloadTooLargeError | undefined;
}

/**
 * The body rules the gateway applies before anything reaches a service, on the
 * headers alone: over the route's declared limit 413, not JSON or not UTF-8 by
 * its charset 415, no room in the process's body budget 503 with Retry-After
 * (the kit's own checks, the services apply the same). The body itself is then
 * streamed to the service as it arrives, unparsed: the service reads and parses
 * it once (400 for malformed JSON, 422 for text no store keeps faithfully, its
 * own budget for what parsing costs), and the gateway only counts its bytes,
 * cutting it off with 413 once a streamed body passes the route's limit. So a
 * body costs the gateway a bounded window of the heap, whatever its size or
 * shape. Returns undefined when the request has no body.
 */
export function forwardedBody(ctx: Context, route: ProxyRoute, budget: BodyBudget): ForwardedBody | undefined {
  if (!METHODS_WITH_BODY.has(ctx.method) || !hasBody(ctx)) return undefined;
  const declared = refuseBodyHeaders(ctx, route.bodyLimitBytes);
  reserveBody(ctx, budget, Math.min(declared > 0 ? declared : route.bodyLimitBytes, STREAMED_BODY_HELD_BYTES));
  const counted = new LimitedBody(route.bodyLimitBytes);
  // Its failures reach the client through the call it is the body of (`refusal`, or the call given up); a stream
  // piped into without a listener of its own would throw them instead.
  counted.on('error', () => undefined);
  const req = ctx.req;
  // Piped, not `pipeline`d: cutting a body off must leave the client's request open for its 413.
  req.pipe(counted);
  req.once('error', (error) => counted.destroy(error));
  req.once('close', () => {
    if (!req.complete) counted.destroy(new Error('the client went away before its body was sent'));
  });
  counted.once('overflow', () => req.unpipe(counted));
  return {
    stream: counted,
    declaredBytes: declared > 0 ? declared : undefined,
    get refusal() {
      return counted.refusal;
    },
  };
}

/** Passes a body on as it is, and fails it once more than `limitBytes` have come. */
class LimitedBody extends Transform {
  private bytes = 0;
  refusal: PayloadTooLargeError | undefined;

  constructor(private readonly limitBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes <= this.limitBytes) {
      done(null, chunk);
      return;
    }
    this.refusal = new PayloadTooLargeError();
    this.emit('overflow');
    done(this.refusal);
  }
}

function hasBody(ctx: Context): boolean {
  const headers = ctx.req.headers;
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}
