import { NotFoundError } from '@dfc/kit/errors';
import { keyIdFrom } from '../domain/ids.js';
import { apiKeyRevoked } from '../domain/events/operator-events.js';
import type { ApiKeyDocument } from '../store/api-key-store.js';
import { authoriseKeyOwner } from './authenticate-operator.js';
import type { BasicCredentials, Caller, UseCaseDeps } from './deps.js';

/** DELETE /api/operators/{uuid}/api-keys/{id}: one of the operator's own keys. */
export async function revokeOperatorKey(
  deps: UseCaseDeps,
  uuidText: string,
  keyIdText: string,
  credentials: BasicCredentials | undefined,
  caller: Caller,
): Promise<void> {
  const operatorUuid = await authoriseKeyOwner(deps, uuidText, credentials, caller, false);
  const key = await findKey(deps, keyIdText);
  if (key.operator_uuid !== operatorUuid) throw new NotFoundError();
  await revoke(deps, key, caller);
}

/** DELETE /api/api-keys/{id} (admins): any key. */
export async function revokeAnyKey(deps: UseCaseDeps, keyIdText: string, caller: Caller): Promise<void> {
  await revoke(deps, await findKey(deps, keyIdText), caller);
}

async function findKey(deps: UseCaseDeps, keyIdText: string): Promise<ApiKeyDocument> {
  const id = keyIdFrom(keyIdText);
  const key = id ? await deps.apiKeys.findById(id) : null;
  if (!key) throw new NotFoundError();
  return key;
}

/**
 * Revoking is idempotent: a key already revoked stays revoked, and only the
 * first revocation emits `api_key.revoked` (which gateways act on at once).
 */
async function revoke(deps: UseCaseDeps, key: ApiKeyDocument, caller: Caller): Promise<void> {
  let revokedNow = false;
  await deps.apiKeys.change(key._id, (current) => {
    revokedNow = current.revoked_at === null;
    if (!revokedNow) return null;
    return { set: { revoked_at: deps.clock() }, events: [apiKeyRevoked(current._id, current.operator_uuid, caller.requestId)] };
  });
  if (revokedNow) deps.metrics.keysRevoked.inc({ role: key.role });
}
