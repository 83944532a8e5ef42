import { ForbiddenError, NotFoundError } from '@dfc/kit/errors';
import type { EventEnvelope } from '@dfc/contracts';
import { keyIdFrom } from '../domain/ids.js';
import { apiKeyRevoked, operatorCredentialsChanged } from '../domain/events/operator-events.js';
import { OperatorMessages } from '../domain/operator-rules.js';
import type { ApiKeyDocument } from '../store/api-key-store.js';
import { authoriseKeyOwner } from './authenticate-operator.js';
import type { BasicCredentials, Caller, UseCaseDeps } from './deps.js';

/**
 * DELETE /api/operators/{uuid}/api-keys/{id}: one of the operator's own keys. An operator's key
 * revokes itself alone; another of its keys needs the operator's email and password (or an admin
 * key), so a leaked key cannot lock its owner's other keys out. Revoked by another credential, the
 * key's owner gets a notice.
 */
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
  const byItself = credentials === undefined && caller.principal.key_id === key._id;
  if (credentials === undefined && caller.principal.role === 'operator' && !byItself) throw new ForbiddenError(OperatorMessages.revocationNeedsBasic);
  await revoke(deps, key, caller, byItself);
}

/** DELETE /api/api-keys/{id} (admins): any key. */
export async function revokeAnyKey(deps: UseCaseDeps, keyIdText: string, caller: Caller): Promise<void> {
  await revoke(deps, await findKey(deps, keyIdText), caller, false);
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
async function revoke(deps: UseCaseDeps, key: ApiKeyDocument, caller: Caller, byItself: boolean): Promise<void> {
  const owner = key.operator_uuid === null || byItself ? null : await deps.operators.findByUuid(key.operator_uuid);
  let revokedNow = false;
  await deps.apiKeys.change(key._id, (current) => {
    revokedNow = current.revoked_at === null;
    if (!revokedNow) return null;
    const events: EventEnvelope[] = [apiKeyRevoked(current._id, current.operator_uuid, caller.requestId)];
    if (owner) events.push(operatorCredentialsChanged(owner._id, ['api_key_revoked'], owner.email, current._id, caller.requestId));
    return { set: { revoked_at: deps.clock() }, events };
  });
  if (revokedNow) deps.metrics.keysRevoked.inc({ role: key.role });
}
