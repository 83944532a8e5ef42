import { bodyValidator } from '@dfc/kit/validation';
import { UnauthenticatedError } from '@dfc/kit/errors';
import { ApiKeyVerifyRequest, type Principal } from '@dfc/contracts';
import { keyIdOf, LAST_USED_RESOLUTION_MS, principalOf } from '../domain/api-key.js';
import { apiKeyMatches } from '../security/api-key-secrets.js';
import type { UseCaseDeps } from './deps.js';

const parseRequest = bodyValidator(ApiKeyVerifyRequest);

/**
 * POST /internal/api-keys/verify: the gateway's question "who holds this
 * key?". The hot path is one read by id and a constant-time digest
 * comparison; `last_used_at` is written at most once a minute per key, in
 * the background, so the answer never waits for it.
 */
export async function verifyApiKey(deps: UseCaseDeps, body: unknown): Promise<Principal> {
  const { key } = parseRequest(body);
  const id = keyIdOf(key);
  if (!id) return refuse(deps, 'malformed');
  const record = await deps.apiKeys.findForVerification(id);
  if (!record || !apiKeyMatches(key, record.digest)) return refuse(deps, 'unknown');
  if (record.revoked_at) return refuse(deps, 'revoked');
  const principal = principalOf(record);
  if (!principal) return refuse(deps, 'unknown');
  recordUse(deps, id);
  deps.metrics.keyVerifications.inc({ outcome: 'valid' });
  return principal;
}

function refuse(deps: UseCaseDeps, outcome: 'malformed' | 'unknown' | 'revoked'): never {
  deps.metrics.keyVerifications.inc({ outcome });
  throw new UnauthenticatedError();
}

/** Fire and forget: a failed write only leaves `last_used_at` a little older. */
function recordUse(deps: UseCaseDeps, id: string): void {
  deps.apiKeys.recordUse(id, deps.clock(), LAST_USED_RESOLUTION_MS).catch((error: Error) => {
    deps.log.warn({ err: error.message, key_id: id }, 'could not record api key use');
  });
}
