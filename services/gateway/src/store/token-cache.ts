import type { Principal } from '@dfc/contracts';
import { INTERNAL_TOKEN_TTL_SECONDS, type InternalTokenSigner } from '@dfc/kit/http';

/** A token is reused for half its life, so a service never receives one about to expire. */
export const TOKEN_REUSE_MS = (INTERNAL_TOKEN_TTL_SECONDS * 1000) / 2;

/**
 * Signed internal tokens, reused per principal so the hot path does not sign
 * (an Ed25519 signature per request) on every call. Keyed by the principal
 * object itself: the key cache hands out the same object for a key while it is
 * cached, and a WeakMap lets tokens go with their principals.
 */
export class InternalTokenCache {
  private readonly tokens = new WeakMap<Principal, { token: Promise<string>; renewAt: number }>();

  constructor(
    private readonly signer: InternalTokenSigner,
    private readonly reuseMs: number = TOKEN_REUSE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  tokenFor(principal: Principal): Promise<string> {
    const now = this.now();
    const cached = this.tokens.get(principal);
    if (cached !== undefined && cached.renewAt > now) return cached.token;
    const token = this.signer.sign(principal);
    this.tokens.set(principal, { token, renewAt: now + this.reuseMs });
    token.catch(() => this.tokens.delete(principal));
    return token;
  }
}
