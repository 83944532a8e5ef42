import { ConflictError } from '@dfc/kit/errors';
import type { OwnerScope } from '../domain/owner-scope.js';
import { generateSigningSecret, rotateSecrets } from '../domain/signing-secrets.js';
import type { StoredSecret } from '../store/endpoint-model.js';
import type { EndpointWithSecret } from './create-endpoint.js';
import type { WebhookDeps } from './delivery-deps.js';
import { findEndpoint } from './find-endpoint.js';

/**
 * A new secret signs from now on; the previous one keeps signing next to it
 * for the overlap (24 h by default) so receivers can switch without a gap.
 * Two rotations racing: the second is refused rather than silently dropping
 * the secret the first one just showed.
 */
export async function rotateSecret(deps: WebhookDeps, id: string, scope: OwnerScope): Promise<EndpointWithSecret> {
  const endpoint = await findEndpoint(deps, id, scope);
  const now = deps.now();
  const secret = generateSigningSecret();
  const fresh: StoredSecret = { ...deps.secretBox.seal(secret, endpoint._id), created_at: now, expires_at: null };
  const secrets = rotateSecrets(endpoint.secrets, fresh, now, deps.policy.secretOverlapMs);
  const updated = await deps.endpoints.replaceSecrets(endpoint._id, endpoint.updated_at, secrets, now);
  if (!updated) throw new ConflictError('The endpoint changed while its secret was being rotated; try again.');
  return { endpoint: updated, secret };
}
