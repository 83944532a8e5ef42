import type { Principal } from '@dfc/contracts';
import { TtlMap } from './ttl-map.js';

/** Far more distinct keys than one replica sees in a TTL; only a flood reaches it. */
const MAX_CACHED_KEYS = 100_000;

/**
 * Principals of verified API keys, keyed by the SHA-256 digest of the key (the
 * key itself is never held). Entries live `ttlMs` (30 s by default): the bound
 * on how long a revoked key may still work if the revocation event is lost.
 * A revocation event drops the key at once and is remembered for a TTL, so a
 * verification that was already in flight cannot put the key back.
 */
export class KeyCache {
  private readonly principals: TtlMap<string, Principal>;
  private readonly revokedKeyIds: TtlMap<string, true>;
  private readonly inflight = new Map<string, Promise<Principal | undefined>>();

  constructor(ttlMs: number, now: () => number = Date.now) {
    this.principals = new TtlMap(ttlMs, MAX_CACHED_KEYS, now);
    this.revokedKeyIds = new TtlMap(ttlMs, MAX_CACHED_KEYS, now);
  }

  /**
   * The cached principal, or the one `verify` finds. Concurrent misses for one
   * key share a single verification, so a burst of a fresh key costs one call.
   */
  resolve(digest: string, verify: () => Promise<Principal | undefined>): Promise<Principal | undefined> {
    const cached = this.principals.get(digest);
    if (cached !== undefined) return Promise.resolve(cached);
    let pending = this.inflight.get(digest);
    if (pending === undefined) {
      pending = this.load(digest, verify);
      this.inflight.set(digest, pending);
    }
    return pending;
  }

  /** Drops every entry of a revoked key; returns how many were cached. */
  revoke(keyId: string): number {
    this.revokedKeyIds.set(keyId, true);
    return this.principals.deleteWhere((principal) => principal.key_id === keyId);
  }

  get size(): number {
    return this.principals.size;
  }

  private async load(digest: string, verify: () => Promise<Principal | undefined>): Promise<Principal | undefined> {
    try {
      const principal = await verify();
      if (principal === undefined) return undefined;
      if (principal.key_id !== undefined && this.revokedKeyIds.get(principal.key_id)) return undefined;
      this.principals.set(digest, principal);
      return principal;
    } finally {
      this.inflight.delete(digest);
    }
  }
}
