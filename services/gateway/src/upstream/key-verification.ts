import { INTERNAL_TOKEN_HEADER, type Principal, type Role } from '@dfc/contracts';
import { ServiceUnavailableError } from '@dfc/kit/errors';
import { type Logger } from '@dfc/kit/logging';
import type { InternalTokenCache } from '../store/token-cache.js';

/** Asks the operator-service who a key belongs to; undefined when it is unknown or revoked. */
export type VerifyApiKey = (key: string, requestId: string) => Promise<Principal | undefined>;

/** The gateway itself, the only caller the verify endpoint accepts. */
export const SYSTEM_PRINCIPAL: Principal = Object.freeze({ sub: 'gateway', role: 'system' });

/**
 * `POST /internal/api-keys/verify` (docs/architecture.md, "Internal endpoint").
 * A 401 means the key is not valid; anything else that is not a Principal means
 * the operator-service cannot answer, which the client sees as 503.
 */
export function operatorServiceKeyVerifier(
  operatorServiceUrl: string,
  tokens: InternalTokenCache,
  timeoutMs: number,
  log: Logger,
): VerifyApiKey {
  const url = new URL('/internal/api-keys/verify', operatorServiceUrl).toString();
  return async (key, requestId) => {
    const response = await post(url, key, requestId, await tokens.tokenFor(SYSTEM_PRINCIPAL), timeoutMs);
    if (response.status === 401) {
      await response.body?.cancel();
      return undefined;
    }
    const principal = response.ok ? toPrincipal(await response.json().catch(() => undefined)) : undefined;
    if (principal === undefined) {
      await response.body?.cancel().catch(() => undefined);
      log.error({ status: response.status, request_id: requestId }, 'api key verification gave no principal');
      throw new ServiceUnavailableError();
    }
    return principal;
  };
}

async function post(url: string, key: string, requestId: string, token: string, timeoutMs: number): Promise<Response> {
  try {
    return await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [INTERNAL_TOKEN_HEADER]: token, 'x-request-id': requestId },
      body: JSON.stringify({ key }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch {
    throw new ServiceUnavailableError();
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
