import { INTERNAL_TOKEN_HEADER, type Principal, type Role } from '@dfc/contracts';
import { ServiceUnavailableError } from '@dfc/kit/errors';
import { type Logger } from '@dfc/kit/logging';
import type { InternalTokenCache } from '../store/token-cache.js';
import type { Upstreams } from './proxy.js';

/** Asks the operator-service who a key belongs to; undefined when it is unknown or revoked. */
export type VerifyApiKey = (key: string, requestId: string) => Promise<Principal | undefined>;

/** The gateway itself, the only caller the verify endpoint accepts. */
export const SYSTEM_PRINCIPAL: Principal = Object.freeze({ sub: 'gateway', role: 'system' });

/**
 * `POST /internal/api-keys/verify` (docs/architecture.md, "Internal endpoint"), over the proxy's own
 * connections to the operator-service rather than `fetch`, which would load Node's bundled copy of
 * undici beside the package, a second HTTP client in memory. A 401 means the key is not valid; anything
 * else that is not a Principal means the operator-service cannot answer, which the client sees as 503.
 */
export function operatorServiceKeyVerifier(upstreams: Upstreams, tokens: InternalTokenCache, timeoutMs: number, log: Logger): VerifyApiKey {
  return async (key, requestId) => {
    const answer = await upstreams.call('operator-service', {
      method: 'POST',
      path: '/internal/api-keys/verify',
      headers: { 'content-type': 'application/json', [INTERNAL_TOKEN_HEADER]: await tokens.tokenFor(SYSTEM_PRINCIPAL), 'x-request-id': requestId },
      body: JSON.stringify({ key }),
      timeoutMs,
    });
    if (answer.status === 401) return undefined;
    const principal = answer.status === 200 ? toPrincipal(parsed(answer.body)) : undefined;
    if (principal === undefined) {
      log.error({ status: answer.status, request_id: requestId }, 'api key verification gave no principal');
      throw new ServiceUnavailableError();
    }
    return principal;
  };
}

function parsed(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Only key roles are accepted: a key can never make the caller `system` or `anonymous`. */
const KEY_ROLES: ReadonlySet<unknown> = new Set<Role>(['operator', 'reviewer', 'admin']);

function toPrincipal(body: unknown): Principal | undefined {
  const data = (body as { data?: Record<string, unknown> } | undefined)?.data;
  if (typeof data !== 'object' || data === null) return undefined;
  const { sub, role } = data;
  if (typeof sub !== 'string' || !KEY_ROLES.has(role)) return undefined;
  const principal: Principal = { sub, role: role as Role };
  for (const claim of ['operator_uuid', 'authority', 'key_id'] as const) {
    const value = data[claim];
    if (typeof value === 'string') principal[claim] = value;
  }
  return Object.freeze(principal);
}
