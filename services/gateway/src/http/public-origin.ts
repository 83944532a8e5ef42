import type { Middleware } from 'koa';
import { BadRequestError } from '@dfc/kit/errors';
import type { PublicOrigin, PublicOriginOf } from '../domain/public-origin.js';

/**
 * Settles, before anything is routed, the address this request's links will
 * name (`ctx.state.publicOrigin`); a Host the deployment does not allow is a
 * 400 rather than a link to wherever the client pointed it.
 */
export function requirePublicOrigin(originOf: PublicOriginOf): Middleware {
  return (ctx, next) => {
    const origin = originOf({ protocol: ctx.protocol, host: ctx.host });
    if (origin === undefined) throw new BadRequestError('The Host header names no address this gateway answers for.');
    ctx.state.publicOrigin = origin;
    return next();
  };
}

export function originUrl(origin: PublicOrigin): string {
  return `${origin.protocol}://${origin.host}`;
}
