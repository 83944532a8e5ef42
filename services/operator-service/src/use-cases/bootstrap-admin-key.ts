import { isDuplicateKey } from '@dfc/kit/db';
import { digestApiKey } from '../security/api-key-secrets.js';
import { keyIdOf, lastFourOf } from '../domain/api-key.js';
import type { UseCaseDeps } from './deps.js';

export const BOOTSTRAP_ADMIN_KEY_NAME = 'bootstrap admin (ADMIN_API_KEY)';

/**
 * At start: the configured admin key exists and matches the configuration.
 * Idempotent, and safe when several replicas start at once (the losers of
 * the insert race follow up with a change). A revocation is kept: a restart
 * must not revive a key an admin revoked.
 */
export async function bootstrapAdminKey(deps: Pick<UseCaseDeps, 'apiKeys' | 'clock'>, adminKey: string): Promise<string> {
  const id = keyIdOf(adminKey);
  if (!id) throw new Error('ADMIN_API_KEY is not a well-formed API key');
  const owner = { role: 'admin' as const, operator_uuid: null, authority: null };
  const configured = { digest: digestApiKey(adminKey), last_four: lastFourOf(adminKey), ...owner };
  if (!(await deps.apiKeys.findById(id))) {
    try {
      await deps.apiKeys.insert({ _id: id, ...configured, name: BOOTSTRAP_ADMIN_KEY_NAME, created_at: deps.clock() });
      return id;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }
  // The digest follows the configured secret (a changed secret under the same id).
  await deps.apiKeys.change(id, (current) => (current.digest === configured.digest && current.role === 'admin' ? null : { set: configured }));
  return id;
}
