import { hash } from 'node:crypto';
import type { Context } from 'koa';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Principal } from '@dfc/contracts';
import { TooManyRequestsError } from '@dfc/kit/errors';
import type { ProxyRoute, PublicRouteKind } from '../domain/routing.js';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { SharedLimitStore } from '../store/limit-store.js';
import { BlockLimiter } from './limit-blocks.js';

/** What counting a call needs of a limiter: its limit, and one call counted (rejected with a RateLimiterRes when over). */
interface CallLimiter {
  readonly points: number;
  consume(key: string): Promise<{ remainingPoints: number }>;
}

export interface RateLimitSettings {
  perKeyPerMinute: number;
  /** Per client IP, for registrations and for key management, each its own budget. */
  publicPerIpPerMinute: number;
  failedAuthPerIpPerMinute: number;
  /** Failed HTTP Basic logins per account (its email) before further attempts on it get 429, in `failedLoginWindowSeconds`. */
  failedLoginsPerAccount: number;
  failedLoginWindowSeconds: number;
  /** Per client IP, for the public authorisation status and JWKS. */
  authorisationChecksPerIpPerMinute: number;
}

/**
 * Every limit is counted on the shared store when there is one (every replica's
 * counters in one database collection, `SharedLimitStore`), so neither calls nor
 * guessing multiply with the number of gateway replicas; without a store (tests
 * of one replica) each limit is counted in this process. A call costs the store
 * one write at most — a key's calls are taken from its shared counter a few at
 * a time (`BlockLimiter`) — and none once its key is over the limit for the
 * window (refused from memory until it ends).
 *
 * API routes are limited per key. The public routes are limited per client IP,
 * the only identity they have, with one budget for registrations and another
 * for key management, so failed registrations never use up key issuance.
 * Failed authentications are counted per client IP too, and only the failures
 * are limited: past the limit a bad key gets 429 instead of 401, while a valid
 * key from the same address (other clients behind one NAT) keeps working.
 */
export class RateLimits {
  private readonly perKey: CallLimiter;
  private readonly publicPerIp: Record<PublicRouteKind, CallLimiter>;
  private readonly failedAuthPerIp: RateLimiterAbstract;
  private readonly failedLoginsPerAccount: RateLimiterAbstract;

  /** With `shared`, every limit is counted across the replicas (the shared store); without it, in this replica. */
  constructor(settings: RateLimitSettings, shared?: SharedLimitStore) {
    const limit = (keyPrefix: string, points: number, durationSeconds: number): RateLimiterAbstract =>
      shared ? shared.limiter({ keyPrefix, points, durationSeconds }) : new RateLimiterMemory({ keyPrefix, points, duration: durationSeconds });
    this.perKey = shared ? new BlockLimiter(limit('key', settings.perKeyPerMinute, 60), 60) : limit('key', settings.perKeyPerMinute, 60);
    this.publicPerIp = {
      registration: limit('registration', settings.publicPerIpPerMinute, 60),
      'api-keys': limit('api-keys', settings.publicPerIpPerMinute, 60),
      authorisations: limit('authorisations', settings.authorisationChecksPerIpPerMinute, 60),
    };
    this.failedAuthPerIp = limit('auth', settings.failedAuthPerIpPerMinute, 60);
    this.failedLoginsPerAccount = limit('login', settings.failedLoginsPerAccount, settings.failedLoginWindowSeconds);
  }

  /**
   * Before an HTTP Basic login reaches the operator-service: 429 with Retry-After while its account
   * or its address is over its failures. Only logins are refused so: the account's API keys, which
   * carry no password, keep working for its owner while someone guesses its password.
   */
  async refuseBlockedLogin(ctx: Context, email: string): Promise<void> {
    const [account, address] = await Promise.all([this.failedLoginsPerAccount.get(accountOf(email)), this.failedAuthPerIp.get(ctx.ip)]);
    const blocked = [
      [account, this.failedLoginsPerAccount],
      [address, this.failedAuthPerIp],
    ] as const;
    for (const [result, limiter] of blocked) {
      if (result !== null && result.consumedPoints >= limiter.points)
        throw new TooManyRequestsError(Math.max(1, Math.ceil(result.msBeforeNext / 1000)));
    }
  }

  /** Counts a login the operator-service refused, against its account and its address; the answer already went out as 401. */
  async countFailedLogin(ctx: Context, email: string): Promise<void> {
    await Promise.all([this.failedLoginsPerAccount.penalty(accountOf(email)), this.failedAuthPerIp.penalty(ctx.ip)]);
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
      route.publicKind !== undefined ? [this.publicPerIp[route.publicKind], ctx.ip] : [this.perKey, principal.key_id ?? principal.sub];
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

/** An account's counter is named by a digest of its email as the operator-service compares it: the store never holds the address. */
function accountOf(email: string): string {
  return hash('sha256', email.trim().toLowerCase(), 'base64url');
}

/** rate-limiter-flexible rejects with its result when over the limit, with an Error when it failed. */
function tooManyOr(refusal: unknown): unknown {
  if (!(refusal instanceof RateLimiterRes)) return refusal;
  return new TooManyRequestsError(Math.max(1, Math.ceil(refusal.msBeforeNext / 1000)));
}
