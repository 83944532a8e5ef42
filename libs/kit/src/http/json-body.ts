import type { Context, Middleware } from 'koa';
import getRawBody from 'raw-body';
import type { Principal, Role } from '@dfc/contracts';
import {
  BadRequestError,
  ForbiddenError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../errors.js';
import { BodyBudget, processBodyBudget, RAW_BYTES_PER_BODY_BYTE, textHeapBytes } from './body-budget.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** A route's own rule for its body: its size limit, and the roles that may send one at all. */
export interface BodyRule {
  limitBytes: number;
  /** Checked before a byte is read; absent: any caller the route's own guards let through. */
  roles?: readonly Role[];
}

/** One limit for every route, or one rule per route (e.g. a bulk import, admins only, allowed more than the rest). */
export type BodyLimit = number | ((method: string, path: string) => number | BodyRule);

/** How long a client refused for want of room is told to wait before it tries again. */
const BUSY_RETRY_AFTER_SECONDS = 1;

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** JSON is UTF-8 (RFC 8259 §8.1); a declared charset may only say so. */
const UTF8_CHARSETS = new Set(['', 'utf-8', 'utf8']);

/**
 * Reads a JSON object body into `ctx.state.body`, or `{}` when there is none.
 * The order of the checks is the order of the documented statuses: a role the
 * route takes no body from (403, before anything is read), too large (413), not
 * JSON or not UTF-8 by its charset (415), no room in the process's body budget
 * now (503 with Retry-After), bytes that are not UTF-8, nested too deeply or not
 * parseable (400), not an object or a text no store keeps faithfully (422). The
 * depth and the parse's cost are found on the raw text, before anything is built.
 */
export function jsonBody(limit: BodyLimit = DEFAULT_BODY_LIMIT_BYTES, budget?: BodyBudget): Middleware {
  return async (ctx, next) => {
    ctx.state.body = {};
    if (!METHODS_WITH_BODY.has(ctx.method) || !hasBody(ctx.req.headers)) {
      await next();
      return;
    }
    const rule = ruleOf(limit, ctx.method, ctx.path);
    if (rule.roles !== undefined) refuseRole(ctx.state.principal as Principal | undefined, rule.roles);
    const declared = refuseBodyHeaders(ctx, rule.limitBytes);
    const room = budget ?? processBodyBudget();
    // A streamed body may grow to the limit; a declared one cannot exceed what it declared.
    const reading = reserveBody(ctx, room, RAW_BYTES_PER_BODY_BYTE * (declared > 0 ? declared : rule.limitBytes));
    const text = await readText(ctx.req, rule.limitBytes);
    // Bytes were declared or streamed, so they must be JSON: whitespace alone is not.
    if (text.length > 0) {
      reading();
      reserveBody(ctx, room, textHeapBytes(text));
      ctx.state.body = parseObject(text);
    }
    await next();
  };
}

function ruleOf(limit: BodyLimit, method: string, path: string): BodyRule {
  if (typeof limit === 'number') return { limitBytes: limit };
  const rule = limit(method, path);
  return typeof rule === 'number' ? { limitBytes: rule } : rule;
}

function refuseRole(principal: Principal | undefined, roles: readonly Role[]): void {
  if (principal === undefined) throw new UnauthenticatedError();
  if (!roles.includes(principal.role)) throw new ForbiddenError();
}

/**
 * The rules a body is held to on its headers alone, before a byte of it is read: declared over `limitBytes` 413,
 * not JSON 415, a charset other than UTF-8 415. Returns the declared length (0 for a streamed body).
 */
export function refuseBodyHeaders(ctx: Context, limitBytes: number): number {
  const declared = Number(ctx.get('Content-Length') || 0);
  if (declared > limitBytes) throw new PayloadTooLargeError();
  if (!ctx.is('application/json', '+json')) throw new UnsupportedMediaTypeError();
  if (!UTF8_CHARSETS.has(ctx.request.charset.toLowerCase()))
    throw new UnsupportedMediaTypeError('Request body must be JSON in UTF-8 (charset=utf-8).');
  return declared;
}

/**
 * Holds `bytes` of the budget until the answer has gone out (or the connection is gone), or until the returned
 * function gives them back sooner: 413 when they could never fit, 503 with Retry-After when they do not fit now.
 */
export function reserveBody(ctx: Context, budget: BodyBudget, bytes: number): () => void {
  if (!budget.admits(bytes)) throw new PayloadTooLargeError('Request body is too large to be read by this server.');
  const release = budget.tryReserve(bytes);
  if (release === undefined)
    throw new ServiceUnavailableError('Too many request bodies are being read; try again shortly.', BUSY_RETRY_AFTER_SECONDS);
  ctx.res.once('close', release);
  return release;
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** Refuses bytes that are not UTF-8 instead of storing U+FFFD in their place. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

async function readText(req: NodeJS.ReadableStream, limit: number): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await getRawBody(req, { limit });
  } catch (error) {
    if ((error as { type?: string }).type === 'entity.too.large') throw new PayloadTooLargeError();
    throw new BadRequestError('Request body could not be read.');
  }
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new BadRequestError('Request body is not valid UTF-8.');
  }
}

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
  // Well-formed UTF-8 holds control characters and lone surrogates only as `\\u` escapes.
  if (text.includes('\\u')) refuseUnfaithfulText(parsed, '');
  // Well-formed JSON of the wrong type is a validation failure (Laravel's 422), not a malformed body.
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw ValidationError.of('body', 'The body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}

/** C0 control characters but tab, line feed and carriage return, which free text may hold (schemas say where). */
// eslint-disable-next-line no-control-regex -- finding control characters is this expression's purpose
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
/** In a `u` expression a surrogate pair is one code point: only a lone surrogate matches. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * No text of the API may hold a control character (no field means one, and not
 * every store or client keeps it) or a lone surrogate (no UTF-8 encoding of it
 * exists, so it could never be stored or sent back as it came): 422 naming the
 * first such string, in any value or key at any depth.
 */
function refuseUnfaithfulText(value: unknown, path: string): void {
  if (typeof value === 'string') {
    refuseUnfaithfulString(value, path);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => refuseUnfaithfulText(item, join(path, String(i))));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      refuseUnfaithfulString(key, path);
      refuseUnfaithfulText(item, join(path, key));
    }
  }
}

function refuseUnfaithfulString(text: string, path: string): void {
  const field = path === '' ? 'body' : path;
  const name = field.replace(/_/g, ' ');
  if (CONTROL_CHARACTER.test(text)) {
    throw ValidationError.of(
      field,
      `The ${name} field must not contain control characters (U+0000 to U+001F; free text may hold tabs and line breaks).`,
    );
  }
  if (LONE_SURROGATE.test(text)) throw ValidationError.of(field, `The ${name} field must be valid Unicode: it holds a lone surrogate.`);
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/**
 * Route guard for a write that takes no body (a delete, a rotation, a redelivery): every field a
 * body names is refused in one 422 rather than ignored, as the routes with a schema refuse theirs.
 */
export function noBodyFields(): Middleware {
  return async (ctx, next) => {
    const fields = Object.keys((ctx.state.body ?? {}) as Record<string, unknown>);
    if (fields.length > 0) {
      throw new ValidationError(Object.fromEntries(fields.map((field) => [field, [`The ${field.replace(/_/g, ' ')} field is prohibited.`]])));
    }
    await next();
  };
}
