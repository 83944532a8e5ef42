import type { Middleware } from 'koa';

/**
 * An answer sent before the client finished sending its body (a streamed body
 * over the limit, a bad key on a large upload, a service that answered without
 * reading it all) leaves unread bytes on the connection. Closing it is the only
 * safe end: a client reusing it would have its next request read as the rest
 * of this body.
 */
export function closeUnfinishedRequests(): Middleware {
  return async (ctx, next) => {
    await next();
    if (!ctx.req.complete) ctx.set('Connection', 'close');
  };
}
