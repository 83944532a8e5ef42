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
    ctx.state = Object.assign(new RequestState(log, requestId), ctx.state);
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info({ request_id: requestId, method: ctx.method, path: ctx.path, status: ctx.status, duration_ms: Math.round(ms * 100) / 100 }, 'request');
    }
  };
}

/**
 * `ctx.state` as a request starts: its id, and a logger bound to the id, made
 * the first time it is read. A pino child serialises its bindings when it is
 * made, and most requests log nothing but the access line, which the parent
 * writes with the same field. A class, so the getter is on its prototype
 * rather than defined on each request's object.
 */
class RequestState {
  readonly #parent: Logger;
  #log: Logger | undefined;

  constructor(
    parent: Logger,
    readonly requestId: string,
  ) {
    this.#parent = parent;
  }

  get log(): Logger {
    return (this.#log ??= this.#parent.child({ request_id: this.requestId }));
  }
}
