import type { Middleware } from 'koa';
import { UnauthenticatedError } from '@dfc/kit/errors';
import { type KitState } from '@dfc/kit/http';
import type { BasicCredentials, Caller } from '../use-cases/deps.js';

export const BASIC_CHALLENGE = 'Basic realm="dfc"';

export function callerOf(state: KitState): Caller {
  return { principal: state.principal, requestId: state.requestId };
}

/**
 * The email and password of an `Authorization: Basic` header; undefined when
 * the client sent none. A Basic header that cannot be decoded is a failed
 * login (401), never silently ignored.
 */
export function basicCredentials(authorization: string): BasicCredentials | undefined {
  const match = /^Basic\s+(\S+)\s*$/i.exec(authorization);
  if (!match?.[1]) {
    if (/^Basic\b/i.test(authorization)) throw new UnauthenticatedError();
    return undefined;
  }
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw new UnauthenticatedError();
  return { email: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Routes that take HTTP Basic tell a refused client how to authenticate (RFC 9110 §11.6.1). */
export const challengeBasic: Middleware = async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (error instanceof UnauthenticatedError) ctx.set('WWW-Authenticate', BASIC_CHALLENGE);
    throw error;
  }
};

/** Routes that need a key: a call without one (anonymous) is 401, before any role check (403). */
export const requireKey: Middleware<KitState> = async (ctx, next) => {
  if (ctx.state.principal.role === 'anonymous') throw new UnauthenticatedError();
  await next();
};
