import type { Context } from 'koa';
import type { Principal } from '@dfc/contracts';
import { TooManyRequestsError } from '@dfc/kit/errors';
import type { ProxyRoute, PublicRouteKind } from '../domain/routing.js';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateLimitSettings {
  perKeyPerMinute: number;
  /** Per client IP, for registrations and for key management, each its own budget. */
  publicPerIpPerMinute: number;
  failedAuthPerIpPerMinute: number;
  /** Per client IP, for the public authorisation status and JWKS. */
  authorisationChecksPerIpPerMinute: number;
}

/**
 * Fixed one-minute windows, counted IN MEMORY PER REPLICA: with N gateway
 * replicas a client may get up to N times the limit. That is the accepted
 * trade for a hot path without a network hop; a shared store (e.g. Redis via
 * rate-limiter-flexible's RateLimiterRedis) is the change if it must be global.
 *
 * API routes are limited per key. The public routes are limited per client IP,
 * the only identity they have, with one budget for registrations and another
 * for key management, so failed registrations never use up key issuance.
 * Failed authentications are counted per client IP too, and only the failures
 * are limited: past the limit a bad key gets 429 instead of 401, while a valid
 * key from the same address (other clients behind one NAT) keeps working.
 */
export class RateLimits {
  private readonly perKey: RateLimiterMemory;
  private readonly publicPerIp: Record<PublicRouteKind, RateLimiterMemory>;
  private readonly failedAuthPerIp: RateLimiterMemory;

  constructor(settings: RateLimitSettings) {
    this.perKey = new RateLimiterMemory({ keyPrefix: 'key', points: settings.perKeyPerMinute, duration: 60 });
    this.publicPerIp = {
      registration: new RateLimiterMemory({ keyPrefix: 'registration', points: settings.publicPerIpPerMinute, duration: 60 }),
      'api-keys': new RateLimiterMemory({ keyPrefix: 'api-keys', points: settings.publicPerIpPerMinute, duration: 60 }),
      authorisations: new RateLimiterMemory({ keyPrefix: 'authorisations', points: settings.authorisationChecksPerIpPerMinute, duration: 60 }),
    };
    this.failedAuthPerIp = new RateLimiterMemory({ keyPrefix: 'auth', points: settings.failedAuthPerIpPerMinute, duration: 60 });
  }

  /** Counts one failed authentication; 429 with Retry-After once the IP is over its limit. */
  async countFailedAuthentication(ctx: Context): Promise<void> {
    try {
      await this.failedAuthPerIp.consume(ctx.ip);
    } catch (refusal) {
      throw tooManyOr(refusal);
    }
  }

  /** Counts the call; sets Laravel's X-RateLimit-* headers, and 429 with Retry-After when over. */
  async enforce(ctx: Context, route: ProxyRoute, principal: Principal): Promise<void> {
    const [limiter, caller] =
      route.publicKind !== undefined
        ? [this.publicPerIp[route.publicKind], ctx.ip]
        : [this.perKey, principal.key_id ?? principal.sub];
    ctx.set('X-RateLimit-Limit', String(limiter.points));
    try {
      const allowed = await limiter.consume(caller);
      ctx.set('X-RateLimit-Remaining', String(allowed.remainingPoints));
    } catch (refusal) {
      ctx.set('X-RateLimit-Remaining', '0');
      throw tooManyOr(refusal);
    }
  }
}

/** rate-limiter-flexible rejects with its result when over the limit, with an Error when it failed. */
function tooManyOr(refusal: unknown): unknown {
  if (!(refusal instanceof RateLimiterRes)) return refusal;
  return new TooManyRequestsError(Math.max(1, Math.ceil(refusal.msBeforeNext / 1000)));
}
