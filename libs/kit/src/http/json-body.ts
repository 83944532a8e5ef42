import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** One limit for every route, or one per route (e.g. a bulk import allowed more than the rest). */
export type BodyLimit = number | ((method: string, path: string) => number);

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Reads a JSON object body into `ctx.state.body`, or `{}` when there is none.
 * The order of the checks is the order of the documented statuses: too large
 * (413), not JSON (415), nested too deeply or not parseable (400), not an
 * object (422). The depth is checked on the raw text, before anything recurses.
 */
export function jsonBody(limit: BodyLimit = DEFAULT_BODY_LIMIT_BYTES): Middleware {
  return async (ctx, next) => {
    ctx.state.body = {};
    if (!METHODS_WITH_BODY.has(ctx.method) || !hasBody(ctx.req.headers)) return next();
    const limitBytes = typeof limit === 'number' ? limit : limit(ctx.method, ctx.path);
    if (Number(ctx.get('Content-Length') || 0) > limitBytes) throw new PayloadTooLargeError();
    if (!ctx.is('application/json', '+json')) throw new UnsupportedMediaTypeError();
    const text = await readText(ctx.req, limitBytes);
    // Bytes were declared or streamed, so they must be JSON: whitespace alone is not.
    if (text.length > 0) ctx.state.body = parseObject(text);
    return next();
  };
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

async function readText(req: NodeJS.ReadableStream, limit: number): Promise<string> {
  try {
    return await getRawBody(req, { limit, encoding: 'utf8' });
  } catch (error) {
    if ((error as { type?: string }).type === 'entity.too.large') throw new PayloadTooLargeError();
    throw new BadRequestError('Request body could not be read.');
  }
}

const NUL_ESCAPE = /\\u0000/i;

function parseObject(text: string): Record<string, unknown> {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new BadRequestError(`Request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BadRequestError();
  }
  // No text of the API may hold a NUL character: no field means one, and not every store keeps it.
  if (NUL_ESCAPE.test(text)) throw ValidationError.of('body', 'The body must not contain NUL characters (\\u0000).');
  // Well-formed JSON of the wrong type is a validation failure (Laravel's 422), not a malformed body.
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw ValidationError.of('body', 'The body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}
