import type { Context } from 'koa';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { Principal } from '@dfc/contracts';
import { TooManyRequestsError } from '@dfc/kit/errors';
import type { ProxyRoute } from '../domain/routing.js';

export interface RateLimitSettings {
  perKeyPerMinute: number;
  publicPerIpPerMinute: number;
  failedAuthPerIpPerMinute: number;
}

/**
 * Fixed one-minute windows, counted IN MEMORY PER REPLICA: with N gateway
 * replicas a client may get up to N times the limit. That is the accepted
 * trade for a hot path without a network hop; a shared store (e.g. Redis via
 * rate-limiter-flexible's RateLimiterRedis) is the change if it must be global.
 *
 * API routes are limited per key; the public routes (registration, key
 * issuance with a password) per client IP, the only identity they have.
 * Failed authentications are counted per client IP too: each unknown key costs
 * the operator-service a lookup, so a client guessing keys is cut off early.
 */
export class RateLimits {
  private readonly perKey: RateLimiterMemory;
  private readonly publicPerIp: RateLimiterMemory;
  private readonly failedAuthPerIp: RateLimiterMemory;

  constructor(settings: RateLimitSettings) {
    this.perKey = new RateLimiterMemory({ keyPrefix: 'key', points: settings.perKeyPerMinute, duration: 60 });
    this.publicPerIp = new RateLimiterMemory({ keyPrefix: 'ip', points: settings.publicPerIpPerMinute, duration: 60 });
    this.failedAuthPerIp = new RateLimiterMemory({ keyPrefix: 'auth', points: settings.failedAuthPerIpPerMinute, duration: 60 });
  }

  /** 429 for a client IP that has sent too many bad keys within the minute. */
  async refuseKeyGuessing(ctx: Context): Promise<void> {
    const failures = await this.failedAuthPerIp.get(ctx.ip);
    if (failures !== null && failures.consumedPoints >= this.failedAuthPerIp.points) {
      throw new TooManyRequestsError(Math.max(1, Math.ceil(failures.msBeforeNext / 1000)));
    }
  }

  async countFailedAuthentication(ctx: Context): Promise<void> {
    await this.failedAuthPerIp.penalty(ctx.ip, 1);
  }

  /** Counts the call; sets Laravel's X-RateLimit-* headers, and 429 with Retry-After when over. */
  async enforce(ctx: Context, route: ProxyRoute, principal: Principal): Promise<void> {
    const [limiter, caller] = route.public
      ? [this.publicPerIp, ctx.ip]
      : [this.perKey, principal.key_id ?? principal.sub];
    ctx.set('X-RateLimit-Limit', String(limiter.points));
    try {
      const allowed = await limiter.consume(caller);
      ctx.set('X-RateLimit-Remaining', String(allowed.remainingPoints));
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      ctx.set('X-RateLimit-Remaining', '0');
      throw new TooManyRequestsError(Math.max(1, Math.ceil(refusal.msBeforeNext / 1000)));
    }
  }
}
