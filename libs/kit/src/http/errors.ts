import type { Middleware } from 'koa';
import type { Logger } from '../logger.js';
import { AppError, ServiceUnavailableError, TooManyRequestsError } from '../errors.js';

/**
 * The single mapping from errors to HTTP. Typed errors render their documented
 * body; an unreachable database, or a query past its time limit, is a 503 (the client may retry); anything else is a 500 that tells the client nothing about internals
 * (the cause goes to the log, with the request id the client also sees).
 */
export function errorMiddleware(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { message: 'Not Found.' };
      }
    } catch (caught) {
      const error = toAppError(caught);
      if (error.status >= 500) (ctx.state as { log?: Logger }).log?.error({ err: caught }, 'request failed');
      if (error instanceof TooManyRequestsError) ctx.set('Retry-After', String(error.retryAfterSeconds));
      if (error instanceof ServiceUnavailableError && error.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(error.retryAfterSeconds));
      ctx.status = error.status;
      ctx.body = error.body();
    }
  };
}

/** The driver's ways of saying the database cannot be reached right now. */
const DATABASE_UNREACHABLE = new Set([
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
]);

/** MongoDB's code for a query stopped by its `maxTimeMS`. */
const MAX_TIME_MS_EXPIRED = 50;

function toAppError(caught: unknown): AppError {
  if (caught instanceof AppError) return caught;
  if (caught instanceof Error && (caught as { code?: unknown }).code === MAX_TIME_MS_EXPIRED) {
    return new ServiceUnavailableError('The list took too long to read; narrow its filters or walk it with cursor.', 1);
  }
  if (caught instanceof Error && (DATABASE_UNREACHABLE.has(caught.name) || /buffering timed out/.test(caught.message))) {
    return new ServiceUnavailableError();
  }
  return new AppError(500, 'Server Error.');
}
