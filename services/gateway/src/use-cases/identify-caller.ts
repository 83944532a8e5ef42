import { hash } from 'node:crypto';
import { API_KEY_PATTERN, type Principal } from '@dfc/contracts';
import { UnauthenticatedError } from '@dfc/kit/errors';
import type { KeyCache } from '../store/key-cache.js';
import type { VerifyApiKey } from '../upstream/key-verification.js';

export interface CallerIdentification {
  keys: KeyCache;
  verify: VerifyApiKey;
}

export interface Call {
  /** The `X-API-Key` header; empty when the client sent none. */
  apiKey: string;
  /** Whether the route may be called without a key. */
  publicRoute: boolean;
  requestId: string;
}

/** Who calls a public route without a key (registration, key issuance with HTTP Basic). */
export const ANONYMOUS: Principal = Object.freeze({ sub: 'anonymous', role: 'anonymous' });

/**
 * Establishes the principal of a call from its API key: no key is anonymous on
 * a public route and 401 elsewhere; a key that does not even have the shape of
 * one is refused without asking anybody; any other key is looked up in the
 * cache or verified by the operator-service. Unknown and revoked keys are 401.
 */
export async function identifyCaller(call: Call, deps: CallerIdentification): Promise<Principal> {
  if (call.apiKey === '') {
    if (call.publicRoute) return ANONYMOUS;
    throw new UnauthenticatedError();
  }
  if (!API_KEY_PATTERN.test(call.apiKey)) throw new UnauthenticatedError();
  const principal = await deps.keys.resolve(digestOf(call.apiKey), () => deps.verify(call.apiKey, call.requestId));
  if (principal === undefined) throw new UnauthenticatedError();
  return principal;
}

/** One-shot `hash`: no Hash object per request, which was most of this function's cost in the profile. */
function digestOf(apiKey: string): string {
  return hash('sha256', apiKey, 'base64');
}
