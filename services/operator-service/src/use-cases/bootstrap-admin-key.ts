import { digestApiKey } from '../security/api-key-secrets.js';
import { keyIdOf, lastFourOf } from '../domain/api-key.js';
import { isDuplicateKeyError } from '../store/duplicate-key.js';
import type { UseCaseDeps } from './deps.js';

export const BOOTSTRAP_ADMIN_KEY_NAME = 'bootstrap admin (ADMIN_API_KEY)';

/**
 * At start: the configured admin key exists and matches the configuration.
 * Idempotent, and safe when several replicas start at once (the losers of
 * the insert race retry as plain updates).
 */
export async function bootstrapAdminKey(deps: Pick<UseCaseDeps, 'apiKeys' | 'clock'>, adminKey: string): Promise<string> {
  const id = keyIdOf(adminKey);
  if (!id) throw new Error('ADMIN_API_KEY is not a well-formed API key');
  const key = { _id: id, digest: digestApiKey(adminKey), last_four: lastFourOf(adminKey), name: BOOTSTRAP_ADMIN_KEY_NAME };
  try {
    await deps.apiKeys.upsertAdmin(key, deps.clock());
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    await deps.apiKeys.upsertAdmin(key, deps.clock());
  }
  return id;
}
