import type { Context } from 'koa';
import { jsonBody } from '@dfc/kit/http';
import { DEFAULT_BODY_LIMIT_BYTES, ZONE_IMPORT_BODY_LIMIT_BYTES, type ProxyRoute } from '../domain/routing.js';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const readers = new Map([
  [DEFAULT_BODY_LIMIT_BYTES, jsonBody(DEFAULT_BODY_LIMIT_BYTES)],
  [ZONE_IMPORT_BODY_LIMIT_BYTES, jsonBody(ZONE_IMPORT_BODY_LIMIT_BYTES)],
]);

/**
 * Applies the body rules before anything reaches a service: over the route's
 * limit 413 (declared or streamed size), not JSON 415, malformed 400. The body
 * is read with the kit's own reader (the same rules the services apply) and
 * forwarded re-serialised, so a service only ever receives well-formed JSON of
 * a known length. Returns undefined when the request has no body.
 */
export async function readForwardedBody(ctx: Context, route: ProxyRoute): Promise<Buffer | undefined> {
  if (!METHODS_WITH_BODY.has(ctx.method) || !hasBody(ctx)) return undefined;
  const read = readers.get(route.bodyLimitBytes) ?? jsonBody(route.bodyLimitBytes);
  await read(ctx, () => Promise.resolve());
  return Buffer.from(JSON.stringify(ctx.state.body));
}

function hasBody(ctx: Context): boolean {
  const headers = ctx.req.headers;
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}
