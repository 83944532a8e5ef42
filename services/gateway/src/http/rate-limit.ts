import { hash } from 'node:crypto';
import type { Context } from 'koa';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Principal } from '@dfc/contracts';
import { TooManyRequestsError } from '@dfc/kit/errors';
import type { ProxyRoute, PublicRouteKind } from '../domain/routing.js';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { SharedLimitStore } from '../store/limit-store.js';

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
 * one write at most, and none once its key is over the limit for the window
 * (refused from memory until it ends).
 *
 * API routes are limited per key. The public routes are limited per client IP,
 * the only identity they have, with one budget for registrations and another
 * for key management, so failed registrations never use up key issuance.
 * Failed authentications are counted per client IP too, and only the failures
 * are limited: past the limit a bad key gets 429 instead of 401, while a valid
 * key from the same address (other clients behind one NAT) keeps working.
 */
export class RateLimits {
  private readonly perKey: RateLimiterAbstract;
  private readonly publicPerIp: Record<PublicRouteKind, RateLimiterAbstract>;
  private readonly failedAuthPerIp: RateLimiterAbstract;
  private readonly failedLoginsPerAccount: RateLimiterAbstract;

  /** With `shared`, every limit is counted across the replicas (the shared store); without it, in this replica. */
  constructor(settings: RateLimitSettings, shared?: SharedLimitStore) {
    const limit = (keyPrefix: string, points: number, durationSeconds: number, givesBack = false): RateLimiterAbstract =>
      shared ? shared.limiter({ keyPrefix, points, durationSeconds, givesBack }) : new RateLimiterMemory({ keyPrefix, points, duration: durationSeconds });
    this.perKey = limit('key', settings.perKeyPerMinute, 60);
    this.publicPerIp = {
      registration: limit('registration', settings.publicPerIpPerMinute, 60),
      'api-keys': limit('api-keys', settings.publicPerIpPerMinute, 60),
      authorisations: limit('authorisations', settings.authorisationChecksPerIpPerMinute, 60),
    };
    this.failedAuthPerIp = limit('auth', settings.failedAuthPerIpPerMinute, 60, true);
    this.failedLoginsPerAccount = limit('login', settings.failedLoginsPerAccount, settings.failedLoginWindowSeconds, true);
  }

  /**
   * Before an HTTP Basic login reaches the operator-service: counts it as failed, against its account and its
   * address, ahead of the answer (429 with Retry-After when either is past its limit). Counted ahead, logins sent
   * all at once cannot each pass a check made before any of them was counted. The function returned gives both
   * counts back, for a login the operator-service did not refuse. Only logins are refused so: the account's API
   * keys, which carry no password, keep working for its owner while someone guesses its password.
   */
  async countLoginAhead(ctx: Context, email: string): Promise<() => Promise<void>> {
    const counters = [
      [this.failedLoginsPerAccount, accountOf(email)],
      [this.failedAuthPerIp, ctx.ip],
    ] as const;
    const outcomes = await Promise.allSettled(counters.map(([limiter, key]) => limiter.consume(key)));
    const giveBack = (counted: ReadonlyArray<readonly [RateLimiterAbstract, string]>) =>
      Promise.all(counted.map(([limiter, key]) => limiter.reward(key))).then(() => undefined);
    const refusals = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
    if (refusals.length === 0) return () => giveBack(counters);
    // A login refused here reaches no one: the counter that took it gives it back, so that an address past its
    // limit does not use up the accounts it names, nor an account under attack the addresses that try it.
    await giveBack(counters.filter((_, i) => outcomes[i]?.status === 'fulfilled'));
    const waits = refusals.map((refusal) => (refusal instanceof RateLimiterRes ? refusal.msBeforeNext : undefined));
    if (waits.includes(undefined)) throw refusals[waits.indexOf(undefined)];
    throw new TooManyRequestsError(Math.max(1, Math.ceil(Math.max(...(waits as number[])) / 1000)));
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
