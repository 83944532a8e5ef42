import type { OwnerScope } from '../domain/owner-scope.js';
import { generateSigningSecret, rotateSecrets } from '../domain/signing-secrets.js';
import type { StoredSecret } from '../store/endpoint-model.js';
import type { EndpointWithSecret } from './create-endpoint.js';
import type { WebhookDeps } from './delivery-deps.js';
import { findEndpoint } from './find-endpoint.js';

/**
 * A new secret signs from now on; the previous one keeps signing next to it
 * for the overlap (24 h by default) so receivers can switch without a gap.
 * Two rotations racing both keep their secrets: each is decided on the
 * endpoint as the other left it.
 */
export async function rotateSecret(deps: WebhookDeps, id: string, scope: OwnerScope): Promise<EndpointWithSecret> {
  const endpoint = await findEndpoint(deps, id, scope);
  const secret = generateSigningSecret();
  const updated = await deps.endpoints.change(endpoint._id, (current) => {
    const now = deps.now();
    const fresh: StoredSecret = { ...deps.secretBox.seal(secret, current._id), created_at: now, expires_at: null };
    return { set: { secrets: rotateSecrets(current.secrets, fresh, now, deps.policy.secretOverlapMs), updated_at: now } };
  });
  return { endpoint: updated, secret };
}
