import cors from '@koa/cors';
import type { Middleware } from 'koa';

/** What a browser script may send and read; the API takes no cookies, so no credentials. */
const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const ALLOWED_HEADERS = ['Content-Type', 'X-API-Key', 'Authorization', 'Idempotency-Key', 'X-Request-Id'];
const EXPOSED_HEADERS = ['Location', 'X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'Retry-After', 'Allow'];
const PREFLIGHT_MAX_AGE_S = 600;

/**
 * CORS for the origins listed in `CORS_ALLOWED_ORIGINS` (exact
 * `scheme://host[:port]`), none by default. @koa/cors (the koa organisation's
 * own) answers preflights and sets the headers, also on error answers; a
 * request from any other origin goes on without them, so the browser withholds
 * the answer from its script. Undefined when no origin is listed: CORS off.
 */
export function corsForOrigins(allowedOrigins: string): Middleware | undefined {
  const origins = new Set(
    allowedOrigins
      .split(',')
      .map((origin) => origin.trim().toLowerCase().replace(/\/$/, ''))
      .filter((origin) => origin !== ''),
  );
  if (origins.size === 0) return undefined;
  return cors({
    origin: (ctx) => (origins.has(ctx.get('Origin').toLowerCase()) ? ctx.get('Origin') : ''),
    allowMethods: ALLOWED_METHODS,
    allowHeaders: ALLOWED_HEADERS,
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_S,
    credentials: false,
    keepHeadersOnError: true,
  });
}
