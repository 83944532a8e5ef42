import type { Context, Middleware } from 'koa';
import { jsonBody, type BodyBudget } from '@dfc/kit/http';
import { DEFAULT_BODY_LIMIT_BYTES, ZONE_IMPORT_BODY_LIMIT_BYTES, type ProxyRoute } from '../domain/routing.js';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The kit's reader for each of the table's limits, every one drawing on the process's one body budget. */
export class BodyReaders {
  private readonly readers: Map<number, Middleware>;

  constructor(private readonly budget: BodyBudget) {
    this.readers = new Map([DEFAULT_BODY_LIMIT_BYTES, ZONE_IMPORT_BODY_LIMIT_BYTES].map((limit) => [limit, jsonBody(limit, budget)]));
  }

  readerFor(limitBytes: number): Middleware {
    return this.readers.get(limitBytes) ?? jsonBody(limitBytes, this.budget);
  }
}

/**
 * Applies the body rules before anything reaches a service: over the route's
 * limit 413 (declared or streamed size), not JSON 415, malformed 400. The body
 * is read with the kit's own reader (the same rules the services apply, the
 * same budget of bodies in flight: 503 with Retry-After beyond it) and
 * forwarded re-serialised, so a service only ever receives well-formed JSON of
 * a known length. Returns undefined when the request has no body.
 */
export async function readForwardedBody(ctx: Context, route: ProxyRoute, readers: BodyReaders): Promise<Buffer | undefined> {
  if (!METHODS_WITH_BODY.has(ctx.method) || !hasBody(ctx)) return undefined;
  await readers.readerFor(route.bodyLimitBytes)(ctx, () => Promise.resolve());
  return Buffer.from(JSON.stringify(ctx.state.body));
}

function hasBody(ctx: Context): boolean {
  const headers = ctx.req.headers;
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}
