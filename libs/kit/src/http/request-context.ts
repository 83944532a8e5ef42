import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Carries `X-Request-Id` across services: a well-formed incoming id is kept
 * (the gateway's, for a call it proxies), anything else is replaced. Every
 * request gets a logger bound to the id (`ctx.state.log`) and one access-log
 * line.
 */
export function requestContext(log: Logger): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const requestId = SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    bindLogger(ctx.state, log, requestId);
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info(
        { request_id: requestId, method: ctx.method, path: ctx.path, status: ctx.status, duration_ms: Math.round(ms * 100) / 100 },
        'request',
      );
    }
  };
}

/**
 * `state.log`, made the first time it is read: a pino child serialises its
 * bindings when it is made, and most requests log nothing but the access line,
 * which the parent writes with the same field.
 */
function bindLogger(state: Record<string, unknown>, log: Logger, requestId: string): void {
  let child: Logger | undefined;
  Object.defineProperty(state, 'log', { enumerable: true, get: () => (child ??= log.child({ request_id: requestId })) });
}
